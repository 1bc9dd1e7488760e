-- Claims of the check engine without the lease-owner index (issue 13 item 6,
-- docs/decisions/018-pglite-start-and-engine-writes.md). Every claim sets lease_owner on the rows
-- it takes and every stored run clears it, so the partial index on lease_owner turned both
-- updates into index insertions, and kept the claim's update from being a heap-only (HOT) one:
-- about a quarter of a claim's cost on PGlite. Only the engine reads lease_owner by value: lease
-- renewal every leaseMs / 3 and the release at stop, each a scan of check_schedule (one row per
-- check) that costs less than the index did on any single claim. Results go back by check_id
-- (the primary key), and due checks are found through check_schedule_due_idx as before.
DROP INDEX lookout.check_schedule_owner_idx;
