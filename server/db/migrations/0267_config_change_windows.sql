-- Pre-aggregated change counts per config item over the last 3, 7 and 30 days, for the catalog
-- summary's `changes.since` (http-api.md §2.2.1: "3d, 7d, 30d use pre-aggregated tables";
-- data-model.md §13 item 12: such counts lag until refreshed). Counting a month of changes for
-- every item on each request reads every change of the month (1,000,000 in bench/catalog); the
-- API refreshes these rows in the background when they are older than a minute and uses them
-- while they are under ten minutes old (server/backend/catalog/change-windows.ts,
-- docs/decisions/021). Internal: not exposed through the data API.
CREATE TABLE lookout.config_change_windows (
  config_id uuid PRIMARY KEY,
  changes_3d integer NOT NULL,
  changes_7d integer NOT NULL,
  changes_30d integer NOT NULL
);

CREATE TABLE lookout.config_change_windows_state (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  -- The `now()` the counts were taken at; null until the first refresh.
  counted_at timestamptz
);
INSERT INTO lookout.config_change_windows_state (singleton, counted_at) VALUES (true, NULL);
