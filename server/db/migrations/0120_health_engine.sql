-- Check engine state (issue 5): which canary specs the engine has materialised into checks, and
-- when each check runs next and which engine process holds it. Kept in the lookout schema so the
-- PostgREST surface never exposes it.

-- One row per local canary the engine has synced; `fingerprint` is an md5 over every column that
-- shapes its checks, so rows written by any path (CLI, /api/canaries, generic /db/canaries,
-- seed) are picked up without relying on updated_at (which only spec changes bump).
CREATE TABLE lookout.canary_sync (
  canary_id uuid NOT NULL REFERENCES canaries (id) ON DELETE CASCADE,
  fingerprint text NOT NULL,
  schedule text,
  error text,
  synced_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (canary_id)
);

-- One row per scheduled check. A process claims due rows with FOR UPDATE SKIP LOCKED and stamps
-- lease_owner/lease_until; the lease is renewed while the check runs and cleared when its result
-- is stored, so an expired lease means the owner died and the check may run elsewhere.
CREATE TABLE lookout.check_schedule (
  check_id uuid NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
  canary_id uuid NOT NULL REFERENCES canaries (id) ON DELETE CASCADE,
  schedule text NOT NULL,
  next_run_at timestamptz NOT NULL,
  lease_owner text,
  lease_until timestamptz,
  last_started_at timestamptz,
  last_owner text,
  PRIMARY KEY (check_id)
);
CREATE INDEX check_schedule_due_idx ON lookout.check_schedule (next_run_at);
CREATE INDEX check_schedule_owner_idx ON lookout.check_schedule (lease_owner) WHERE lease_owner IS NOT NULL;

-- Engine processes announce themselves so operators can see who runs checks; nothing depends on
-- this table for correctness (leases do that).
CREATE TABLE lookout.check_engines (
  process_id text NOT NULL,
  hostname text,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (process_id)
);
