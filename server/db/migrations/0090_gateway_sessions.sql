-- Console state that is not part of the platform's data contract lives in schema "lookout",
-- which the PostgREST-compatible API never exposes.
CREATE SCHEMA IF NOT EXISTS lookout;

-- Browser sessions of the gateway. The cookie holds a random id; only its SHA-256 is stored,
-- so a leaked table does not let anyone sign in.
CREATE TABLE lookout.sessions (
  id_hash text PRIMARY KEY,
  person_id uuid NOT NULL,
  roles text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  user_agent text,
  ip text
);
CREATE INDEX sessions_expires_at_idx ON lookout.sessions (expires_at);

-- Instance settings written by the server itself (e.g. the hash of a generated bootstrap token).
CREATE TABLE lookout.settings (
  key text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Hosted mode: each organisation's public metadata (backend_url, direct) as the identity
-- provider would hold it, plus the bearer token the gateway uses for direct requests.
CREATE TABLE lookout.organizations (
  id text PRIMARY KEY,
  name text NOT NULL,
  public_metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  backend_token text,
  created_at timestamptz NOT NULL DEFAULT now()
);
