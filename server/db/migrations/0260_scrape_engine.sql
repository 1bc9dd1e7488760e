-- The scrape engine's own state (docs/decisions/020-scrape-engine.md), beside the catalog tables
-- of the data model and outside the API (schema lookout).

-- One row per scraper this server runs: its effective schedule and the next tick, and a lease
-- that any engine process takes with SKIP LOCKED, so one scraper never runs twice at once.
-- spec_updated_at follows config_scrapers.updated_at: an edited scraper runs again at once.
CREATE TABLE lookout.scraper_schedule (
  scraper_id uuid PRIMARY KEY REFERENCES config_scrapers (id) ON DELETE CASCADE,
  schedule text NOT NULL,
  spec_updated_at timestamptz,
  next_run_at timestamptz NOT NULL DEFAULT now(),
  lease_owner text,
  lease_until timestamptz,
  last_started_at timestamptz,
  last_owner text
);
CREATE INDEX scraper_schedule_due_idx ON lookout.scraper_schedule (next_run_at);

-- A hash of everything a scrape writes for an item (config, name, labels, tags, health…), so a
-- re-scrape finds its unchanged items in one read and writes nothing for them.
CREATE TABLE lookout.config_item_scrape_hashes (
  config_id uuid PRIMARY KEY REFERENCES config_items (id) ON DELETE CASCADE,
  hash text NOT NULL
);
