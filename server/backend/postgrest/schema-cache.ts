import type { Queryable } from '#server/db/client.ts'
import { viewColumnOrigins } from './view-columns.ts'

/**
 * What the engine knows about the exposed schema, read once from pg_catalog. Every identifier
 * that reaches generated SQL comes from here, and relationships (including those that pass
 * through views exposing a base table's key columns) are computed once instead of per request.
 */
export type Column = {
  name: string
  num: number
  /** SQL type name without modifiers, safe to use in a cast (`format_type(oid, NULL)`). */
  type: string
  /** Type category letter from pg_type (A array, S string, R range, …), of the base type for domains. */
  category: string
  /** Base type name for domains, the type itself otherwise (to spot json/jsonb/tsvector). */
  baseType: string
  nullable: boolean
  defaultExpr: string | null
  generated: boolean
  identityAlways: boolean
}

export type Relation = {
  oid: number
  schema: string
  name: string
  kind: 'table' | 'view' | 'materialized_view' | 'foreign_table' | 'partitioned_table'
  columns: Column[]
  columnsByName: Map<string, Column>
  primaryKey: string[]
  insertable: boolean
}

export type Cardinality = 'm2o' | 'o2m' | 'o2o' | 'm2m'

export type Relationship = {
  cardinality: Cardinality
  source: Relation
  target: Relation
  /** Constraint name (for m2m: the name of the FK from the junction to the source). */
  constraint: string
  /** Column pairs joining source to target (m2o/o2m/o2o), or source to junction (m2m). */
  sourceColumns: string[]
  targetColumns: string[]
  junction?: {
    relation: Relation
    constraintToSource: string
    constraintToTarget: string
    /** junction columns referencing the source's `sourceColumns`. */
    sourceJoinColumns: string[]
    /** junction columns referencing the target's `targetColumns`. */
    targetJoinColumns: string[]
  }
}

export type FunctionArgument = { name: string; type: string; hasDefault: boolean; variadic: boolean }

export type RoutineReturn =
  | { kind: 'scalar'; type: string; set: boolean }
  | { kind: 'void' }
  | {
      kind: 'composite'
      set: boolean
      relation: Relation | null
      columns: Column[]
      /**
       * `schema.name` of a table or view outside the exposed schema whose rows the function
       * returns (e.g. `identity.sessions`): such rows are never served, whatever the function.
       */
      hiddenRelation: string | null
    }

export type Routine = {
  oid: number
  name: string
  args: FunctionArgument[]
  returns: RoutineReturn
  volatile: boolean
}

type RelationRow = { oid: number | string; name: string; kind: string; insertable: boolean }
type ColumnRow = {
  rel: number | string
  num: number
  name: string
  type: string
  category: string
  base_type: string
  not_null: boolean
  default_expr: string | null
  generated: boolean
  identity_always: boolean
}
type ConstraintRow = {
  name: string
  type: string
  rel: number | string
  frel: number | string | null
  keys: number[] | string
  fkeys: number[] | string | null
}
type RoutineRow = {
  oid: number | string
  name: string
  retset: boolean
  volatility: string
  ndefaults: number
  argnames: string[] | string | null
  argmodes: string[] | string | null
  argtypes: string[] | string
  rettype: string
  rettypekind: string
  retrelid: number | string
  retrelschema: string | null
  retrelname: string | null
  retrelkind: string | null
}

const RELATIONS_SQL = `
SELECT c.oid::int8 AS oid, c.relname AS name, c.relkind::text AS kind,
  (c.relkind IN ('r', 'p') OR (pg_relation_is_updatable(c.oid::regclass, true) & 8) = 8) AS insertable
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind IN ('r', 'v', 'm', 'f', 'p')`

// Columns of every user relation (not only the exposed schema): functions may return the row
// type of a table elsewhere, and view origins point at base tables in other schemas.
const COLUMNS_SQL = `
SELECT a.attrelid::int8 AS rel, a.attnum::int4 AS num, a.attname AS name,
  format_type(a.atttypid, NULL) AS type,
  (CASE WHEN t.typtype = 'd' THEN bt.typcategory ELSE t.typcategory END)::text AS category,
  (CASE WHEN t.typtype = 'd' THEN bt.typname ELSE t.typname END)::text AS base_type,
  a.attnotnull AS not_null,
  pg_get_expr(d.adbin, d.adrelid) AS default_expr,
  (a.attgenerated <> '') AS generated,
  (a.attidentity = 'a') AS identity_always
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_type bt ON bt.oid = t.typbasetype
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'v', 'm', 'f', 'p', 'c')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
ORDER BY a.attrelid, a.attnum`

const CONSTRAINTS_SQL = `
SELECT con.conname AS name, con.contype::text AS type, con.conrelid::int8 AS rel, con.confrelid::int8 AS frel,
  con.conkey::int4[] AS keys, con.confkey::int4[] AS fkeys
FROM pg_constraint con
JOIN pg_class c ON c.oid = con.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE con.contype IN ('p', 'u', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema')`

const VIEWS_SQL = `
SELECT c.oid::int8 AS oid, r.ev_action::text AS action
FROM pg_rewrite r
JOIN pg_class c ON c.oid = r.ev_class
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE r.rulename = '_RETURN' AND c.relkind IN ('v', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')`

const ROUTINES_SQL = `
SELECT p.oid::int8 AS oid, p.proname AS name, p.proretset AS retset, p.provolatile::text AS volatility,
  p.pronargdefaults::int4 AS ndefaults,
  p.proargnames AS argnames,
  p.proargmodes::text[] AS argmodes,
  ARRAY(SELECT format_type(u.t, NULL) FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) WITH ORDINALITY AS u(t, i) ORDER BY u.i) AS argtypes,
  format_type(p.prorettype, NULL) AS rettype, rt.typtype::text AS rettypekind, rt.typrelid::int8 AS retrelid,
  rn.nspname AS retrelschema, rc.relname AS retrelname, rc.relkind::text AS retrelkind
FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_type rt ON rt.oid = p.prorettype
LEFT JOIN pg_class rc ON rc.oid = rt.typrelid
LEFT JOIN pg_namespace rn ON rn.oid = rc.relnamespace
WHERE n.nspname = $1 AND p.prokind = 'f'`

const RELATION_KINDS: Record<string, Relation['kind']> = {
  r: 'table',
  v: 'view',
  m: 'materialized_view',
  f: 'foreign_table',
  p: 'partitioned_table',
}

/** Postgres arrays arrive parsed from node-postgres but may arrive as literals elsewhere. */
function pgArray(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((item) => String(item))
  if (typeof value !== 'string' || value.length < 2) return []
  const inner = value.slice(1, -1)
  if (inner === '') return []
  const items: string[] = []
  let current = ''
  let quoted = false
  for (let index = 0; index < inner.length; index++) {
    const char = inner[index]!
    if (quoted) {
      if (char === '\\') current += inner[++index] ?? ''
      else if (char === '"') quoted = false
      else current += char
    } else if (char === '"') quoted = true
    else if (char === ',') {
      items.push(current)
      current = ''
    } else current += char
  }
  items.push(current)
  return items
}

export class SchemaCache {
  readonly schema: string
  private readonly db: Queryable
  private relations = new Map<string, Relation>()
  private relationships = new Map<string, Relationship[]>()
  private routines = new Map<string, Routine[]>()
  private loading: Promise<void> | null = null
  private loaded = false

  constructor(db: Queryable, schema = 'public') {
    this.db = db
    this.schema = schema
  }

  /** Loads the cache once; concurrent callers share the same load. */
  async load(): Promise<void> {
    if (this.loaded) return
    if (!this.loading) {
      this.loading = this.read().then(
        () => {
          this.loaded = true
          this.loading = null
        },
        (error: unknown) => {
          this.loading = null
          throw error
        },
      )
    }
    return this.loading
  }

  /** Re-reads the catalog (after migrations); requests keep using the old snapshot until done. */
  async refresh(): Promise<void> {
    this.loaded = false
    this.loading = null
    await this.load()
  }

  get isLoaded(): boolean {
    return this.loaded
  }

  relation(name: string): Relation | undefined {
    return this.relations.get(name)
  }

  relationNames(): string[] {
    return [...this.relations.keys()]
  }

  relationshipsFrom(source: string): Relationship[] {
    return this.relationships.get(source) ?? []
  }

  routine(name: string): Routine[] {
    return this.routines.get(name) ?? []
  }

  private async read(): Promise<void> {
    const [relationRows, columnRows, constraintRows, viewRows, routineRows] = await Promise.all([
      this.db.query<RelationRow>(RELATIONS_SQL, [this.schema]),
      this.db.query<ColumnRow>(COLUMNS_SQL),
      this.db.query<ConstraintRow>(CONSTRAINTS_SQL),
      this.db.query<{ oid: number | string; action: string }>(VIEWS_SQL),
      this.db.query<RoutineRow>(ROUTINES_SQL, [this.schema]),
    ])

    const columnsByRelation = new Map<number, Column[]>()
    for (const row of columnRows.rows) {
      const rel = Number(row.rel)
      let list = columnsByRelation.get(rel)
      if (!list) columnsByRelation.set(rel, (list = []))
      list.push({
        name: row.name,
        num: Number(row.num),
        type: row.type,
        category: row.category,
        baseType: row.base_type,
        nullable: !row.not_null,
        defaultExpr: row.default_expr,
        generated: row.generated,
        identityAlways: row.identity_always,
      })
    }
    const columnName = (rel: number, num: number) => columnsByRelation.get(rel)?.find((col) => col.num === num)?.name

    const relations = new Map<string, Relation>()
    const byOid = new Map<number, Relation>()
    for (const row of relationRows.rows) {
      const oid = Number(row.oid)
      const columns = columnsByRelation.get(oid) ?? []
      const relation: Relation = {
        oid,
        schema: this.schema,
        name: row.name,
        kind: RELATION_KINDS[row.kind] ?? 'table',
        columns,
        columnsByName: new Map(columns.map((col) => [col.name, col])),
        primaryKey: [],
        insertable: row.insertable,
      }
      relations.set(relation.name, relation)
      byOid.set(oid, relation)
    }

    type Fk = { name: string; rel: number; frel: number; keys: number[]; fkeys: number[] }
    const fks: Fk[] = []
    const uniqueKeys = new Map<number, number[][]>()
    const primaryKeys = new Map<number, number[]>()
    for (const row of constraintRows.rows) {
      const rel = Number(row.rel)
      const keys = pgArray(row.keys).map(Number)
      if (row.type === 'f') {
        fks.push({ name: row.name, rel, frel: Number(row.frel), keys, fkeys: pgArray(row.fkeys).map(Number) })
        continue
      }
      if (row.type === 'p') primaryKeys.set(rel, keys)
      const list = uniqueKeys.get(rel) ?? []
      list.push(keys)
      uniqueKeys.set(rel, list)
    }

    // Each exposed view column → the base (relation, column) it passes through, resolved
    // transitively so views over views reach the table that owns the constraint.
    const directOrigins = new Map<number, Map<number, { rel: number; col: number }>>()
    for (const row of viewRows.rows) {
      const map = new Map<number, { rel: number; col: number }>()
      for (const origin of viewColumnOrigins(row.action)) {
        map.set(origin.resno, { rel: origin.originRelation, col: origin.originColumn })
      }
      directOrigins.set(Number(row.oid), map)
    }
    const resolveOrigin = (rel: number, col: number): { rel: number; col: number } => {
      let current = { rel, col }
      for (let hops = 0; hops < 16; hops++) {
        const next = directOrigins.get(current.rel)?.get(current.col)
        if (!next) return current
        current = next
      }
      return current
    }
    // For each base relation oid: the exposed relations and how their columns map onto it.
    const exposures = new Map<number, { relation: Relation; columnFor: Map<number, string> }[]>()
    for (const relation of byOid.values()) {
      const perBase = new Map<number, Map<number, string>>()
      for (const col of relation.columns) {
        const origin = relation.kind === 'view' || relation.kind === 'materialized_view'
          ? resolveOrigin(relation.oid, col.num)
          : { rel: relation.oid, col: col.num }
        let map = perBase.get(origin.rel)
        if (!map) perBase.set(origin.rel, (map = new Map()))
        if (!map.has(origin.col)) map.set(origin.col, col.name)
      }
      for (const [base, columnFor] of perBase) {
        const list = exposures.get(base) ?? []
        list.push({ relation, columnFor })
        exposures.set(base, list)
      }
    }

    // Primary keys: a table's own, or for a view the base key columns it exposes in full.
    for (const relation of byOid.values()) {
      const own = primaryKeys.get(relation.oid)
      if (own) {
        relation.primaryKey = own.map((num) => columnName(relation.oid, num)).filter((n): n is string => !!n)
        continue
      }
      for (const [base, pk] of primaryKeys) {
        const exposure = exposures.get(base)?.find((item) => item.relation === relation)
        if (!exposure) continue
        const names = pk.map((num) => exposure.columnFor.get(num))
        if (names.every((name): name is string => !!name)) {
          relation.primaryKey = names
          break
        }
      }
    }

    const isUnique = (rel: number, keys: number[]) =>
      (uniqueKeys.get(rel) ?? []).some((unique) => unique.length === keys.length && unique.every((k) => keys.includes(k)))

    const relationships = new Map<string, Relationship[]>()
    const add = (relationship: Relationship) => {
      const list = relationships.get(relationship.source.name) ?? []
      list.push(relationship)
      relationships.set(relationship.source.name, list)
    }
    const exposeAll = (base: number, keys: number[]) =>
      (exposures.get(base) ?? []).flatMap((exposure) => {
        const names = keys.map((key) => exposure.columnFor.get(key))
        return names.every((name): name is string => !!name) ? [{ relation: exposure.relation, names }] : []
      })

    for (const fk of fks) {
      const oneToOne = isUnique(fk.rel, fk.keys)
      for (const source of exposeAll(fk.rel, fk.keys)) {
        for (const target of exposeAll(fk.frel, fk.fkeys)) {
          add({
            cardinality: oneToOne ? 'o2o' : 'm2o',
            source: source.relation,
            target: target.relation,
            constraint: fk.name,
            sourceColumns: source.names,
            targetColumns: target.names,
          })
          add({
            cardinality: oneToOne ? 'o2o' : 'o2m',
            source: target.relation,
            target: source.relation,
            constraint: fk.name,
            sourceColumns: target.names,
            targetColumns: source.names,
          })
        }
      }
    }

    // Many-to-many: an exposed table whose primary key holds the columns of two FKs.
    for (const junction of byOid.values()) {
      if (junction.kind !== 'table' && junction.kind !== 'partitioned_table') continue
      const pk = primaryKeys.get(junction.oid)
      if (!pk) continue
      const junctionFks = fks.filter((fk) => fk.rel === junction.oid && fk.keys.every((key) => pk.includes(key)))
      for (const left of junctionFks) {
        for (const right of junctionFks) {
          if (left === right) continue
          const leftJoin = left.keys.map((key) => columnName(junction.oid, key)!)
          const rightJoin = right.keys.map((key) => columnName(junction.oid, key)!)
          for (const source of exposeAll(left.frel, left.fkeys)) {
            for (const target of exposeAll(right.frel, right.fkeys)) {
              add({
                cardinality: 'm2m',
                source: source.relation,
                target: target.relation,
                constraint: left.name,
                sourceColumns: source.names,
                targetColumns: target.names,
                junction: {
                  relation: junction,
                  constraintToSource: left.name,
                  constraintToTarget: right.name,
                  sourceJoinColumns: leftJoin,
                  targetJoinColumns: rightJoin,
                },
              })
            }
          }
        }
      }
    }

    const routines = new Map<string, Routine[]>()
    for (const row of routineRows.rows) {
      const types = pgArray(row.argtypes)
      const names = pgArray(row.argnames)
      const modes = pgArray(row.argmodes)
      const inputs: FunctionArgument[] = []
      const outputs: Column[] = []
      types.forEach((type, index) => {
        const mode = modes[index] ?? 'i'
        const name = names[index] ?? ''
        if (mode === 'i' || mode === 'b' || mode === 'v') {
          inputs.push({ name, type, hasDefault: false, variadic: mode === 'v' })
        }
        if (mode === 'o' || mode === 'b' || mode === 't') {
          outputs.push({
            name,
            num: outputs.length + 1,
            type,
            category: type.endsWith('[]') ? 'A' : 'X',
            baseType: type,
            nullable: true,
            defaultExpr: null,
            generated: false,
            identityAlways: false,
          })
        }
      })
      for (let index = inputs.length - Number(row.ndefaults); index < inputs.length; index++) {
        if (index >= 0) inputs[index]!.hasDefault = true
      }
      let returns: RoutineReturn
      const retrelid = Number(row.retrelid)
      if (row.rettype === 'void') returns = { kind: 'void' }
      else if (row.rettypekind === 'c') {
        const relation = byOid.get(retrelid) ?? null
        // A stand-alone composite type (relkind 'c') is only a shape; a table or view elsewhere holds rows.
        const hiddenRelation =
          !relation && row.retrelkind && row.retrelkind !== 'c' && row.retrelschema && row.retrelname
            ? `${row.retrelschema}.${row.retrelname}`
            : null
        returns = {
          kind: 'composite',
          set: row.retset,
          relation,
          columns: relation?.columns ?? columnsByRelation.get(retrelid) ?? [],
          hiddenRelation,
        }
      } else if (row.rettype === 'record' && outputs.length > 0) {
        returns = { kind: 'composite', set: row.retset, relation: null, columns: outputs, hiddenRelation: null }
      } else returns = { kind: 'scalar', type: row.rettype, set: row.retset }
      const routine: Routine = { oid: Number(row.oid), name: row.name, args: inputs, returns, volatile: row.volatility === 'v' }
      const list = routines.get(routine.name) ?? []
      list.push(routine)
      routines.set(routine.name, list)
    }

    this.relations = relations
    this.relationships = relationships
    this.routines = routines
  }
}
