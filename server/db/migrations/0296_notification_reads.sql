-- The top bar's unread count (server/backend/notifications/notification-unread.ts): when each
-- person last opened /notifications. Kept in lookout: it is the console's state, not the platform's.
CREATE TABLE lookout.notification_reads (
  person_id uuid PRIMARY KEY REFERENCES people(id) ON DELETE CASCADE,
  seen_at timestamptz NOT NULL
);

-- Every page asks for the count: only delivered sends (sent, error) are counted, newest first, so
-- the query walks this partial index from the person's seen_at and stops at the cap.
CREATE INDEX notification_send_history_delivered_idx ON notification_send_history (created_at DESC) WHERE status IN ('sent', 'error');
