-- on.schedule of playbooks (resource-specs §2.3): one row per playbook, schedule entry and tick.
-- Every process computes the same ticks; the one whose insert of the slot wins creates the run, so
-- two processes never create the same scheduled run. run_id or error says how the slot ended.
-- Rows older than a week are removed by the scheduler.
CREATE TABLE lookout.playbook_schedule_slots (
  playbook_id uuid NOT NULL REFERENCES playbooks (id) ON DELETE CASCADE,
  entry integer NOT NULL,
  slot timestamptz NOT NULL,
  owner text NOT NULL,
  run_id uuid REFERENCES playbook_runs (id) ON DELETE SET NULL,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (playbook_id, entry, slot)
);
CREATE INDEX playbook_schedule_slots_slot_idx ON lookout.playbook_schedule_slots (slot);

-- Event triggers (on.canary, on.config, on.component): which playbooks an event occurrence has
-- already created a run for. The event consumer retries an event whose other handlers asked for a
-- retry (their writes kept); this keeps that retry from creating the same run twice. event_key is
-- the queue row's id and its created_at, which enqueue_event renews when it re-arms the row for a
-- new occurrence. Rows older than a week are removed by the trigger handlers.
CREATE TABLE lookout.playbook_event_runs (
  event_key text NOT NULL,
  playbook_id uuid NOT NULL REFERENCES playbooks (id) ON DELETE CASCADE,
  run_id uuid REFERENCES playbook_runs (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (event_key, playbook_id)
);
CREATE INDEX playbook_event_runs_created_at_idx ON lookout.playbook_event_runs (created_at);
