-- The notification delivery pipeline's own state (docs/decisions/026-notification-delivery.md),
-- beside the data model's notification tables and outside the API (schema lookout).

-- One row per send-history row a dispatcher is delivering. lease_owner/lease_until: the process
-- sending it holds the lease (renewed every leaseMs / 3, longer than any one send may take); a
-- process that dies mid-send leaves a lease that lapses, and another process then sends the row.
-- The row goes when the outcome is written, so the table holds only sends in flight.
CREATE TABLE lookout.notification_send_leases (
  history_id uuid PRIMARY KEY REFERENCES notification_send_history (id) ON DELETE CASCADE,
  lease_owner text NOT NULL,
  lease_until timestamptz NOT NULL
);

-- The dispatcher's claim reads only the rows still to be worked, ordered by when they are due.
CREATE INDEX notification_send_history_due_idx ON notification_send_history (coalesce(not_before, created_at))
  WHERE status IN ('pending', 'evaluating-waitfor', 'attempting_fallback', 'pending_playbook_run', 'pending_playbook_completion');

-- Repeat-interval, inhibition and grouping look back over one rule's rows for one resource.
CREATE INDEX notification_send_history_rule_resource_idx ON notification_send_history (notification_id, resource_id, created_at DESC);

CREATE INDEX notification_groups_hash_idx ON notification_groups (notification_id, hash, created_at DESC);

-- A new dispatch (or one that became due again) wakes every dispatcher at once; they also poll.
CREATE FUNCTION notification_send_history_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IN ('pending', 'evaluating-waitfor', 'attempting_fallback') THEN
    PERFORM pg_notify('notification_send_updates', NEW.id::text);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER notification_send_history_due AFTER INSERT OR UPDATE OF status, not_before ON notification_send_history
  FOR EACH ROW EXECUTE FUNCTION notification_send_history_notify();
