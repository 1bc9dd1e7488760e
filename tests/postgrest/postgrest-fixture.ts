import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import express from 'express'
import { PostgrestClient } from '@supabase/postgrest-js'
import { createPostgrestRouter, type PostgrestRouterOptions } from '#server/backend/postgrest/router.ts'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'

/**
 * A small schema of its own (people, teams, a join table, config items with a view over them,
 * incidents with several FKs to people, and a few functions) so these tests do not depend on
 * the product migrations.
 */
export const FIXTURE_SQL = `
CREATE SCHEMA IF NOT EXISTS lookout;
CREATE TABLE lookout.secrets (id serial PRIMARY KEY, value text);

CREATE TABLE people (
  id serial PRIMARY KEY,
  name text NOT NULL,
  email text UNIQUE,
  avatar text,
  age int,
  score numeric,
  active boolean NOT NULL DEFAULT true,
  tags text[] NOT NULL DEFAULT '{}',
  meta jsonb NOT NULL DEFAULT '{}',
  bio text,
  available tstzrange,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);

CREATE TABLE teams (
  id serial PRIMARY KEY,
  name text NOT NULL UNIQUE,
  created_by int REFERENCES people(id)
);

CREATE TABLE team_members (
  team_id int NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  person_id int NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  role text,
  PRIMARY KEY (team_id, person_id)
);

CREATE TABLE config_items (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  type text,
  config jsonb,
  labels json,
  created_by int REFERENCES people(id),
  deleted_at timestamptz
);

CREATE VIEW configs AS
  SELECT ci.id, ci.name, ci.type, ci.config, p.name AS owner_name
  FROM config_items ci LEFT JOIN people p ON p.id = ci.created_by
  WHERE ci.deleted_at IS NULL;

-- Re-exposes people's key: column-named embeds (created_by(...)) must still pick the table.
CREATE VIEW people_roles AS SELECT id, name, 'member'::text AS role FROM people;

CREATE TABLE config_relationships (
  config_id uuid NOT NULL,
  related_id uuid NOT NULL,
  relation text NOT NULL DEFAULT 'parent',
  CONSTRAINT config_relationships_config_id_fkey FOREIGN KEY (config_id) REFERENCES config_items(id),
  CONSTRAINT config_relationships_related_id_fkey FOREIGN KEY (related_id) REFERENCES config_items(id)
);

CREATE TABLE config_changes (
  id serial PRIMARY KEY,
  config_id uuid NOT NULL REFERENCES config_items(id),
  change_type text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE incidents (
  id serial PRIMARY KEY,
  title text NOT NULL,
  severity int NOT NULL DEFAULT 3,
  commander_id int REFERENCES people(id),
  communicator_id int REFERENCES people(id),
  created_by int REFERENCES people(id),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE hypotheses (
  id serial PRIMARY KEY,
  incident_id int NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
  title text NOT NULL,
  created_by int REFERENCES people(id)
);

CREATE TABLE evidences (
  id serial PRIMARY KEY,
  hypothesis_id int NOT NULL REFERENCES hypotheses(id) ON DELETE CASCADE,
  description text NOT NULL,
  created_by int REFERENCES people(id)
);

CREATE FUNCTION add_numbers(a int, b int DEFAULT 1) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT a + b';
CREATE FUNCTION search_people(q text) RETURNS SETOF people LANGUAGE sql STABLE AS
  $$ SELECT * FROM people WHERE name ILIKE '%' || q || '%' $$;
CREATE FUNCTION people_count() RETURNS bigint LANGUAGE sql STABLE AS 'SELECT count(*) FROM people';
CREATE FUNCTION rename_person(person int, new_name text) RETURNS void LANGUAGE sql AS
  $$ UPDATE people SET name = new_name WHERE id = person $$;
CREATE FUNCTION echo_json(json) RETURNS json LANGUAGE sql IMMUTABLE AS 'SELECT $1';
CREATE FUNCTION team_sizes(min_size int DEFAULT 0) RETURNS TABLE (team text, size bigint) LANGUAGE sql STABLE AS
  $$ SELECT t.name, count(m.person_id) FROM teams t LEFT JOIN team_members m ON m.team_id = t.id
     GROUP BY t.name HAVING count(m.person_id) >= min_size $$;
CREATE FUNCTION first_person() RETURNS people LANGUAGE sql STABLE AS 'SELECT * FROM people ORDER BY id LIMIT 1';
CREATE FUNCTION sum_all(VARIADIC nums int[]) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT sum(n)::int FROM unnest(nums) n';
CREATE FUNCTION slow(seconds float8) RETURNS int LANGUAGE sql AS 'SELECT 1 FROM pg_sleep(seconds)';
`

export const SEED_SQL = `
INSERT INTO people (name, email, age, score, active, tags, meta, bio, available, created_at) VALUES
  ('Alice', 'alice@example.com', 34, 9.5, true, '{admin,ops}', '{"team":{"name":"core"},"level":3}', 'likes quick brown foxes', '[2024-01-01,2024-02-01)', '2024-01-01T00:00:00Z'),
  ('Bob', 'bob@example.com', 28, 7, true, '{ops}', '{"team":{"name":"edge"},"level":1}', 'enjoys lazy dogs', '[2024-03-01,2024-04-01)', '2024-01-02T00:00:00Z'),
  ('Carol, "the great"', 'carol@example.com', NULL, NULL, false, '{}', '{}', NULL, NULL, '2024-01-03T00:00:00Z'),
  ('Dave', NULL, 45, 3.25, true, '{dev}', '{"level":2}', 'fox hunter', NULL, '2024-01-04T00:00:00Z');
INSERT INTO teams (name, created_by) VALUES ('core', 1), ('edge', 2), ('empty', NULL);
INSERT INTO team_members (team_id, person_id, role) VALUES (1, 1, 'lead'), (1, 2, 'member'), (2, 2, 'lead'), (2, 4, 'member');
INSERT INTO config_items (id, name, type, config, labels, created_by, deleted_at) VALUES
  ('00000000-0000-0000-0000-0000000000a1', 'cluster-a', 'Kubernetes::Cluster', '{"region":"eu","nodes":3}', '{"env":"prod"}', 1, NULL),
  ('00000000-0000-0000-0000-0000000000a2', 'pod-a', 'Kubernetes::Pod', '{"region":"eu","nodes":0}', '{"env":"dev"}', 2, NULL),
  ('00000000-0000-0000-0000-0000000000a3', 'old-pod', 'Kubernetes::Pod', '{}', NULL, NULL, '2024-01-01T00:00:00Z');
INSERT INTO config_relationships (config_id, related_id, relation) VALUES
  ('00000000-0000-0000-0000-0000000000a2', '00000000-0000-0000-0000-0000000000a1', 'member-of');
INSERT INTO config_changes (config_id, change_type) VALUES
  ('00000000-0000-0000-0000-0000000000a1', 'diff'), ('00000000-0000-0000-0000-0000000000a1', 'Scaled'),
  ('00000000-0000-0000-0000-0000000000a2', 'diff');
INSERT INTO incidents (title, severity, commander_id, communicator_id, created_by) VALUES
  ('Outage', 1, 1, 2, 1), ('Slow pages', 3, 2, NULL, 2), ('Unowned', 4, NULL, NULL, NULL);
INSERT INTO hypotheses (incident_id, title, created_by) VALUES (1, 'bad deploy', 1), (1, 'dns', 2), (2, 'cache miss', 2);
INSERT INTO evidences (hypothesis_id, description, created_by) VALUES (1, 'deploy log', 1), (1, 'graph', 2), (3, 'hit ratio', 2);
`

export type PostgrestHarness = {
  testDb: TestDb
  url: string
  client: PostgrestClient
  server: Server
  close(): Promise<void>
}

export async function startPostgrest(options: Omit<PostgrestRouterOptions, 'db'> = {}, seed = true): Promise<PostgrestHarness> {
  const testDb = await createTestDb({ migrated: false })
  await testDb.db.exec(FIXTURE_SQL)
  if (seed) await testDb.db.exec(SEED_SQL)
  const app = express()
  app.use('/db', createPostgrestRouter({ db: testDb.db, ...options }))
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening))
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/db`
  return {
    testDb,
    url,
    server,
    client: new PostgrestClient(url),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await testDb.drop()
    },
  }
}

/** Raw request helper for what the client library cannot express (headers, odd query strings). */
export async function raw(
  harness: PostgrestHarness,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Headers; text: string; json: () => unknown }> {
  const response = await fetch(`${harness.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'Content-Type': 'application/json', ...(init.headers ?? {}) },
    body: init.body,
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as unknown }
}
