-- Secret playbook parameters are encrypted at rest (server/backend/playbooks/parameter-secrets.ts).
-- Without LOOKOUT_SECRET_KEY the key is generated once by the first process that needs it and
-- kept here, so every process sharing the database decrypts what another encrypted. Kept in the
-- lookout schema so the data API never exposes it.
CREATE TABLE lookout.playbook_secret_key (
  -- One row only: the primary key is always true.
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  key bytea NOT NULL CHECK (octet_length(key) = 32),
  created_at timestamptz NOT NULL DEFAULT now()
);
