-- The embedded, Kratos-compatible identity service. It lives in schema "identity", which the
-- PostgREST-compatible API never exposes: credentials, sessions and codes must not leak.
CREATE SCHEMA IF NOT EXISTS identity;

-- traits holds {email, name: {first, last}} like the flanksource identity schema.
CREATE TABLE identity.identities (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  schema_id text NOT NULL DEFAULT 'default',
  traits jsonb NOT NULL,
  state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'inactive')),
  state_changed_at timestamptz NOT NULL DEFAULT now(),
  metadata_public jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id)
);
CREATE UNIQUE INDEX identities_email_key ON identity.identities (lower(traits ->> 'email'));

-- One row per method; config is method specific (password: argon2id hash; totp: secret and last
-- accepted time step; lookup_secret: codes; webauthn: public keys).
CREATE TABLE identity.identity_credentials (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  identity_id uuid NOT NULL REFERENCES identity.identities (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('password', 'totp', 'lookup_secret', 'webauthn')),
  identifiers text[] NOT NULL DEFAULT '{}',
  config jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id),
  UNIQUE (identity_id, type)
);

CREATE TABLE identity.identity_verifiable_addresses (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  identity_id uuid NOT NULL REFERENCES identity.identities (id) ON DELETE CASCADE,
  value text NOT NULL,
  via text NOT NULL DEFAULT 'email',
  verified boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'completed')),
  verified_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id),
  UNIQUE (identity_id, via)
);
CREATE INDEX identity_verifiable_addresses_value_idx ON identity.identity_verifiable_addresses (lower(value));

CREATE TABLE identity.identity_recovery_addresses (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  identity_id uuid NOT NULL REFERENCES identity.identities (id) ON DELETE CASCADE,
  value text NOT NULL,
  via text NOT NULL DEFAULT 'email',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id),
  UNIQUE (identity_id, via)
);
CREATE INDEX identity_recovery_addresses_value_idx ON identity.identity_recovery_addresses (lower(value));

-- Self-service flows. ui_state keeps what the next render needs (entered values, messages);
-- the nodes themselves are rebuilt per request so the CSRF value is freshly masked each time.
-- internal holds server-only state (pending TOTP secret, WebAuthn challenge, new backup codes).
CREATE TABLE identity.flows (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  kind text NOT NULL CHECK (kind IN ('login', 'registration', 'recovery', 'verification', 'settings')),
  type text NOT NULL DEFAULT 'browser',
  state text NOT NULL,
  active text,
  request_url text NOT NULL,
  return_to text,
  requested_aal text NOT NULL DEFAULT 'aal1',
  refresh boolean NOT NULL DEFAULT false,
  identity_id uuid REFERENCES identity.identities (id) ON DELETE CASCADE,
  session_id uuid,
  csrf_token_hash text,
  ui_state jsonb NOT NULL DEFAULT '{}'::jsonb,
  internal jsonb NOT NULL DEFAULT '{}'::jsonb,
  issued_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id)
);
CREATE INDEX flows_expires_at_idx ON identity.flows (expires_at);

-- Only hashes of the cookie value and the logout token are stored.
CREATE TABLE identity.sessions (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  token_hash text NOT NULL,
  logout_token_hash text,
  identity_id uuid NOT NULL REFERENCES identity.identities (id) ON DELETE CASCADE,
  aal text NOT NULL DEFAULT 'aal1',
  authentication_methods jsonb NOT NULL DEFAULT '[]'::jsonb,
  authenticated_at timestamptz NOT NULL DEFAULT now(),
  issued_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  active boolean NOT NULL DEFAULT true,
  ip_address text,
  user_agent text,
  PRIMARY KEY (id)
);
CREATE UNIQUE INDEX sessions_token_hash_key ON identity.sessions (token_hash);
CREATE INDEX sessions_identity_idx ON identity.sessions (identity_id);

-- One-time codes: e-mailed recovery/verification codes, recovery links and first-admin
-- registration links. Only SHA-256 hashes are stored; attempts caps guessing per code.
CREATE TABLE identity.codes (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  kind text NOT NULL CHECK (kind IN ('recovery_code', 'verification_code', 'recovery_link', 'registration_link')),
  code_hash text NOT NULL,
  flow_id uuid REFERENCES identity.flows (id) ON DELETE CASCADE,
  identity_id uuid REFERENCES identity.identities (id) ON DELETE CASCADE,
  address text,
  role text,
  attempts integer NOT NULL DEFAULT 0,
  used_at timestamptz,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id)
);
CREATE INDEX codes_flow_idx ON identity.codes (flow_id);
CREATE INDEX codes_hash_idx ON identity.codes (code_hash);

CREATE TABLE identity.flow_errors (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  error jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id)
);

-- Failed sign-in counters per fixed window, keyed "identifier:<email>" or "ip:<address>".
-- Kept in the database because several processes may serve the same users.
CREATE TABLE identity.login_attempts (
  key text NOT NULL,
  window_started_at timestamptz NOT NULL DEFAULT now(),
  failures integer NOT NULL DEFAULT 0,
  PRIMARY KEY (key)
);

-- Every mail the service sends; without SMTP this is where a local user finds the code.
CREATE TABLE identity.mail_outbox (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  "to" text NOT NULL,
  subject text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  error text,
  PRIMARY KEY (id)
);
CREATE INDEX mail_outbox_created_idx ON identity.mail_outbox (created_at);

-- Each identity has a person with the same id (name "first last", email from the traits), so
-- everything that points at people (owners, comments, role rows) works for signed-in users.
CREATE FUNCTION identity.sync_person() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  full_name text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM public.casbin_rule WHERE ptype = 'g' AND v0 = OLD.id::text;
    UPDATE public.people SET deleted_at = now(), updated_at = now() WHERE id = OLD.id AND deleted_at IS NULL;
    RETURN OLD;
  END IF;
  full_name := btrim(concat_ws(' ', NEW.traits #>> '{name,first}', NEW.traits #>> '{name,last}'));
  IF full_name = '' THEN
    full_name := coalesce(NEW.traits ->> 'email', NEW.id::text);
  END IF;
  INSERT INTO public.people (id, name, email, created_at, updated_at)
  VALUES (NEW.id, full_name, NEW.traits ->> 'email', now(), now())
  ON CONFLICT (id) DO UPDATE
    SET name = EXCLUDED.name, email = EXCLUDED.email, updated_at = now(), deleted_at = NULL;
  RETURN NEW;
END
$$;

CREATE TRIGGER identities_sync_person
AFTER INSERT OR UPDATE OF traits ON identity.identities
FOR EACH ROW EXECUTE FUNCTION identity.sync_person();

CREATE TRIGGER identities_delete_person
AFTER DELETE ON identity.identities
FOR EACH ROW EXECUTE FUNCTION identity.sync_person();
