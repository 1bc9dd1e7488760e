-- The playbook runner's own state (docs/decisions/025-playbook-runner.md), beside the playbook
-- tables of the data model and outside the API (schema lookout).

-- One row per run the runner has started. lease_owner/lease_until: the process executing a step of
-- the run holds the lease (renewed every leaseMs / 3); a process that dies leaves a lease that
-- lapses, and another process then fails the action it left running and goes on by the sequencing
-- rules. deadline: when the run times out, fixed when the run is first picked (its scheduled_time
-- then, plus its timeout), so delays and retries count against the run's timeout.
CREATE TABLE lookout.playbook_run_leases (
  run_id uuid PRIMARY KEY REFERENCES playbook_runs (id) ON DELETE CASCADE,
  lease_owner text,
  lease_until timestamptz,
  deadline timestamptz NOT NULL,
  -- The action row being executed under the lease, named in the error when its process died.
  action_id uuid
);
CREATE INDEX playbook_run_leases_deadline_idx ON lookout.playbook_run_leases (deadline);

-- Runs waiting on something other than their scheduled_time (running with a lapsed lease, waiting
-- for children, past their deadline) are found through this index of the non-final ones.
CREATE INDEX playbook_runs_live_idx ON playbook_runs (status)
  WHERE status NOT IN ('completed', 'failed', 'cancelled', 'timed_out');

-- Every change of a run's or an action's status, for the run page's live updates (server-sent
-- events). playbook_run_updates and playbook_action_updates keep the reference's meaning (a run
-- or action became due) and payloads; this channel says what changed:
-- {"run_id", "parent_id"?, "action_id"?, "status"}.
CREATE FUNCTION playbook_run_progress_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status IS NOT DISTINCT FROM NEW.status AND OLD.end_time IS NOT DISTINCT FROM NEW.end_time THEN
    RETURN NULL;
  END IF;
  IF TG_TABLE_NAME = 'playbook_runs' THEN
    PERFORM pg_notify('playbook_run_progress', json_build_object(
      'run_id', NEW.id, 'parent_id', NEW.parent_id, 'status', NEW.status)::text);
  ELSE
    PERFORM pg_notify('playbook_run_progress', json_build_object(
      'run_id', NEW.playbook_run_id, 'action_id', NEW.id, 'status', NEW.status)::text);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER playbook_runs_progress AFTER INSERT OR UPDATE ON playbook_runs
  FOR EACH ROW EXECUTE FUNCTION playbook_run_progress_notify();
CREATE TRIGGER playbook_run_actions_progress AFTER INSERT OR UPDATE ON playbook_run_actions
  FOR EACH ROW EXECUTE FUNCTION playbook_run_progress_notify();
