-- Counters of rate-limiter-flexible's PostgreSQL store (server/backend/identity/kratos/rate-limit.ts),
-- in the shape the library reads and writes: one row per limiter key, `expire` in epoch
-- milliseconds. Created here rather than by the library so both engines get it with the schema.
-- Kept in the database because several processes may serve the same users.
CREATE TABLE identity.rate_limits (
  key text NOT NULL,
  points integer NOT NULL DEFAULT 0,
  expire bigint,
  PRIMARY KEY (key)
);
CREATE INDEX rate_limits_expire_idx ON identity.rate_limits (expire);

-- The hand-written sign-in counters it replaces.
DROP TABLE identity.login_attempts;

-- One-time links mailed to an account's owner when its sign-ins were locked.
ALTER TABLE identity.codes DROP CONSTRAINT codes_kind_check;
ALTER TABLE identity.codes ADD CONSTRAINT codes_kind_check
  CHECK (kind IN ('recovery_code', 'verification_code', 'recovery_link', 'registration_link', 'unlock_link'));
