-- The topology engine's own state (docs/decisions/023-topology-runner.md), beside the topology
-- tables of the data model and outside the API (schema lookout).

-- One row per topology this server runs: its effective schedule and the next tick, and a lease
-- that any engine process takes with SKIP LOCKED, so one topology never runs twice at once.
-- spec_updated_at follows topologies.updated_at: an edited topology runs again at once.
CREATE TABLE lookout.topology_schedule (
  topology_id uuid PRIMARY KEY REFERENCES topologies (id) ON DELETE CASCADE,
  schedule text NOT NULL,
  spec_updated_at timestamptz,
  next_run_at timestamptz NOT NULL DEFAULT now(),
  lease_owner text,
  lease_until timestamptz,
  last_started_at timestamptz,
  last_owner text
);
CREATE INDEX topology_schedule_due_idx ON lookout.topology_schedule (next_run_at);

-- The demo estate's topologies describe components the seed wrote directly (nested children,
-- check links, health) that their short specs do not list: running them would soft-delete most of
-- the demo. They carry source 'Demo', as the demo canaries do, and the engine never schedules
-- them. canaries.source is free text; topologies.source is the platform's enum, so it gains the
-- value (added, not used, in this transaction: PostgreSQL allows that).
ALTER TYPE source ADD VALUE IF NOT EXISTS 'Demo';
