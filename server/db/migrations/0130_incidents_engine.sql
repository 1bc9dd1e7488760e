-- Incident engine (issue 6): defaults the spec states, and the indexes the incident rules and
-- the event-queue consumer look rows up by. Vocabularies (status, severity, type, ...) stay free
-- text as in the reference database; the /api/db write validator enforces them instead, so rows
-- written by agents or older clients are never rejected by the database itself.

-- "A new incident defaults to open" and "a new root hypothesis starts as possible" (spec 000 §4),
-- whichever client leaves the field out.
ALTER TABLE incidents ALTER COLUMN status SET DEFAULT 'open';
ALTER TABLE hypotheses ALTER COLUMN status SET DEFAULT 'possible';

-- Rule deduplication: "is an incident opened by this rule for this check still open?"
CREATE INDEX incidents_incident_rule_id_idx ON incidents (incident_rule_id) WHERE incident_rule_id IS NOT NULL;
CREATE INDEX evidences_check_id_idx ON evidences (check_id) WHERE check_id IS NOT NULL;

-- The consumer claims the oldest due events of the names it handles.
CREATE INDEX event_queue_claim_idx ON event_queue (priority DESC, created_at);
