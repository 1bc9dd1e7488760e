import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { raw, startPostgrest, type PostgrestHarness } from './postgrest-fixture.ts'

let h: PostgrestHarness

beforeAll(async () => {
  h = await startPostgrest({ maxRows: 1000 })
}, 60_000)
afterAll(async () => {
  await h?.close()
})

const names = (data: unknown) => (data as { name: string }[]).map((row) => row.name)

describe('select', () => {
  test('columns, aliases, casts and JSON paths', async () => {
    const { data, error } = await h.client
      .from('people')
      .select('id,who:name,age::text,team:meta->team->>name,level:meta->level,meta->team')
      .lt('id', 3)
      .order('id')
    expect(error).toBeNull()
    // `meta->team` is named after its last key, like PostgREST; JSON keeps the later duplicate.
    expect(data).toEqual([
      { id: 1, who: 'Alice', age: '34', level: 3, team: { name: 'core' } },
      { id: 2, who: 'Bob', age: '28', level: 1, team: { name: 'edge' } },
    ])
    const res = await raw(h, '/people?select=team:meta->team->>name&id=eq.1')
    expect(res.json()).toEqual([{ team: 'core' }])
  })

  test('star returns every column with JSON types intact', async () => {
    const { data } = await h.client.from('people').select('*').eq('id', 1).single()
    expect(data).toMatchObject({ id: 1, name: 'Alice', tags: ['admin', 'ops'], meta: { level: 3 }, active: true, score: 9.5 })
  })

  test('many-to-one by column name and alias:column', async () => {
    const { data, error } = await h.client
      .from('incidents')
      .select('title, commander:commander_id(name), communicator_id(name), created_by(id,name)')
      .order('id')
    expect(error).toBeNull()
    expect(data).toEqual([
      { title: 'Outage', commander: { name: 'Alice' }, communicator_id: { name: 'Bob' }, created_by: { id: 1, name: 'Alice' } },
      { title: 'Slow pages', commander: { name: 'Bob' }, communicator_id: null, created_by: { id: 2, name: 'Bob' } },
      { title: 'Unowned', commander: null, communicator_id: null, created_by: null },
    ])
  })

  test('one-to-many, nested, with embedded filter, order and limit', async () => {
    const { data, error } = await h.client
      .from('incidents')
      .select('title, hypotheses(title, evidences(description, created_by(name)))')
      .eq('id', 1)
      .order('id', { referencedTable: 'hypotheses', ascending: false })
      .limit(1, { referencedTable: 'hypotheses' })
    expect(error).toBeNull()
    expect(data).toEqual([{ title: 'Outage', hypotheses: [{ title: 'dns', evidences: [] }] }])

    const filtered = await raw(h, '/incidents?select=title,hypotheses(title)&hypotheses.title=like.*deploy*&id=eq.1')
    expect(filtered.json()).toEqual([{ title: 'Outage', hypotheses: [{ title: 'bad deploy' }] }])
  })

  test('many-to-many through a join table, disambiguated by hint', async () => {
    const ambiguous = await raw(h, '/teams?select=name,people(name)')
    expect(ambiguous.status).toBe(300)
    expect(ambiguous.json()).toMatchObject({ code: 'PGRST201' })
    const { data, error } = await h.client.from('teams').select('name, people!team_members(name)').order('id')
    expect(error).toBeNull()
    expect(data).toEqual([
      { name: 'core', people: [{ name: 'Alice' }, { name: 'Bob' }] },
      { name: 'edge', people: [{ name: 'Bob' }, { name: 'Dave' }] },
      { name: 'empty', people: [] },
    ])
    const byFk = await raw(h, '/teams?select=name,creator:people!teams_created_by_fkey(name)&id=eq.1')
    expect(byFk.json()).toEqual([{ name: 'core', creator: { name: 'Alice' } }])
  })

  test('!inner drops parents without matches; !left and embed=not.is.null', async () => {
    const inner = await raw(h, '/people?select=name,members:team_members!inner(role)&members.role=eq.lead&order=id')
    expect(inner.json()).toEqual([
      { name: 'Alice', members: [{ role: 'lead' }] },
      { name: 'Bob', members: [{ role: 'lead' }] },
    ])
    const left = await raw(h, '/people?select=name,team_members!left(role)&team_members.role=eq.lead&order=id')
    expect((left.json() as unknown[]).length).toBe(4)
    const notNull = await raw(h, '/incidents?select=title,commander:commander_id(name)&commander=not.is.null&order=id')
    expect(names((notNull.json() as { title: string }[]).map((row) => ({ name: row.title })))).toEqual(['Outage', 'Slow pages'])
    const isNull = await raw(h, '/incidents?select=title,commander:commander_id(name)&commander=is.null')
    expect(isNull.json()).toEqual([{ title: 'Unowned', commander: null }])
  })

  test('or= mixes own columns with embed presence (embed.not.is.null), the embed keeping its filters', async () => {
    // Incidents titled "Unowned" OR whose commander is named Bob: PostgREST's way to OR across an embed.
    const mixed = await raw(
      h,
      '/incidents?select=title,commander:commander_id(name)&commander.name=eq.Bob&or=(title.eq.Unowned,commander.not.is.null)&order=id',
    )
    expect(mixed.status).toBe(200)
    expect(mixed.json()).toEqual([
      { title: 'Slow pages', commander: { name: 'Bob' } },
      { title: 'Unowned', commander: null },
    ])
    const { data, error } = await h.client
      .from('incidents')
      .select('title, hypotheses(title)')
      .eq('hypotheses.title', 'dns')
      .or('severity.gte.3,hypotheses.not.is.null')
      .order('id')
    expect(error).toBeNull()
    expect(data).toEqual([
      { title: 'Outage', hypotheses: [{ title: 'dns' }] },
      { title: 'Slow pages', hypotheses: [] },
      { title: 'Unowned', hypotheses: [] },
    ])
    const nested = await raw(h, '/incidents?select=title,commander:commander_id(name)&not.or=(commander.is.null,and(severity.gt.1,title.neq.Outage))')
    expect(nested.json()).toEqual([{ title: 'Outage', commander: { name: 'Alice' } }])
    // Only presence tests are allowed on an embed inside a logic tree, as for plain filters.
    const refused = await raw(h, '/incidents?select=title,commander:commander_id(name)&or=(commander.eq.1,severity.eq.1)')
    expect(refused.status).toBe(400)
    expect(refused.json()).toMatchObject({ code: 'PGRST100' })
    // An embedded column named inside or= is refused, as PostgREST 12 refuses it.
    const direct = await raw(h, '/config_changes?select=id,config:configs(name)&or=(change_type.eq.Scaled,config.name.ilike.*pod*)')
    expect(direct.status).toBe(400)
    expect(direct.json()).toMatchObject({ code: 'PGRST100' })
    // A name that is neither a column nor an embed of the request stays an unknown column.
    const unknown = await raw(h, '/incidents?select=title&or=(commander.not.is.null,severity.eq.1)')
    expect(unknown.status).toBe(400)
    expect(unknown.json()).toMatchObject({ code: '42703' })
  })

  test('views are embed targets through their base table FKs', async () => {
    const { data, error } = await h.client
      .from('config_changes')
      .select('change_type, config:configs(name, owner_name)')
      .order('id')
    expect(error).toBeNull()
    expect(data?.[0]).toEqual({ change_type: 'diff', config: { name: 'cluster-a', owner_name: 'Alice' } })
    const rels = await raw(
      h,
      '/config_relationships?select=relation,configs:configs!config_relationships_config_id_fkey(name),related:configs!config_relationships_related_id_fkey(name)',
    )
    expect(rels.json()).toEqual([{ relation: 'member-of', configs: { name: 'pod-a' }, related: { name: 'cluster-a' } }])
    const viaView = await raw(h, '/incidents?select=title,commander:people_roles!incidents_commander_id_fkey(name,role)&id=eq.1')
    expect(viaView.json()).toEqual([{ title: 'Outage', commander: { name: 'Alice', role: 'member' } }])
    const reverse = await raw(h, '/configs?select=name,config_changes(change_type)&name=eq.pod-a')
    expect(reverse.json()).toEqual([{ name: 'pod-a', config_changes: [{ change_type: 'diff' }] }])
  })

  test('spread of a to-one embed', async () => {
    const res = await raw(h, '/incidents?select=title,...commander_id(commander_name:name)&id=eq.1')
    expect(res.json()).toEqual([{ title: 'Outage', commander_name: 'Alice' }])
  })

  test('ordering by a to-one embedded column', async () => {
    const res = await raw(h, '/incidents?select=title,commander:commander_id(name)&order=commander(name).desc.nullslast')
    expect((res.json() as { title: string }[]).map((row) => row.title)).toEqual(['Slow pages', 'Outage', 'Unowned'])
  })
})

describe('filters', () => {
  const cases: [string, string[]][] = [
    ['name=eq.Alice', ['Alice']],
    ['name=neq.Alice', ['Bob', 'Carol, "the great"', 'Dave']],
    ['age=gt.34', ['Dave']],
    ['age=gte.34', ['Alice', 'Dave']],
    ['age=lt.34', ['Bob']],
    ['age=lte.34', ['Alice', 'Bob']],
    ['name=like.*a*', ['Carol, "the great"', 'Dave']],
    ['name=ilike.a*', ['Alice']],
    ['name=match.^[AB]', ['Alice', 'Bob']],
    ['name=imatch.^d', ['Dave']],
    ['id=in.(1,3)', ['Alice', 'Carol, "the great"']],
    ['name=in.("Carol, \\"the great\\"",Bob)', ['Bob', 'Carol, "the great"']],
    ['id=not.in.(1,2,3)', ['Dave']],
    ['age=is.null', ['Carol, "the great"']],
    ['age=not.is.null', ['Alice', 'Bob', 'Dave']],
    ['age=is.not_null', ['Alice', 'Bob', 'Dave']],
    ['active=is.false', ['Carol, "the great"']],
    ['active=is.true', ['Alice', 'Bob', 'Dave']],
    ['email=isdistinct.alice@example.com', ['Bob', 'Carol, "the great"', 'Dave']],
    ['bio=fts.fox', ['Alice', 'Dave']],
    ['bio=fts(english).foxes', ['Alice', 'Dave']],
    ['bio=plfts(english).lazy dogs', ['Bob']],
    ['bio=phfts(english).quick brown', ['Alice']],
    ['bio=wfts(english).fox -hunter', ['Alice']],
    ['tags=cs.{ops}', ['Alice', 'Bob']],
    ['tags=cd.{ops,admin,dev}', ['Alice', 'Bob', 'Carol, "the great"', 'Dave']],
    ['tags=ov.{dev,admin}', ['Alice', 'Dave']],
    ['meta=cs.{"level":1}', ['Bob']],
    ['available=sl.[2024-02-15,2024-02-20)', ['Alice']],
    ['available=sr.[2024-02-15,2024-02-20)', ['Bob']],
    ['available=nxr.[2024-02-15,2024-02-20)', ['Alice']],
    ['available=nxl.[2024-02-15,2024-02-20)', ['Bob']],
    ['available=adj.[2024-02-01,2024-03-01)', ['Alice', 'Bob']],
    ['meta->>level=eq.2', ['Dave']],
    ['meta->team->>name=in.(core,edge)', ['Alice', 'Bob']],
    ['meta->level=gt.1', ['Alice', 'Dave']],
    ['name=like(any).{A*,D*}', ['Alice', 'Dave']],
    ['id=eq(any).{2,4}', ['Bob', 'Dave']],
    ['name=not.like(all).{*a*,*e*}', ['Alice', 'Bob']],
    ['or=(age.gt.40,name.eq.Bob)', ['Bob', 'Dave']],
    ['or=(age.is.null,and(age.gt.30,active.is.true))', ['Alice', 'Carol, "the great"', 'Dave']],
    ['not.or=(age.gt.40,age.is.null)', ['Alice', 'Bob']],
    ['and=(active.is.true,or(name.eq.Bob,name.eq.Dave))', ['Bob', 'Dave']],
    ['or=(name.eq."Carol, \\"the great\\"",tags.cs.{dev})', ['Carol, "the great"', 'Dave']],
    ['or=(id.in.(1,2),age.is.null)&active=is.true', ['Alice', 'Bob']],
    ['created_at=gte.2024-01-03T00:00:00Z', ['Carol, "the great"', 'Dave']],
    ['score=gt.7', ['Alice']],
  ]
  test.each(cases)('%s', async (query, expected) => {
    const res = await raw(h, `/people?select=name&order=id&${query.replace(/ /g, '%20')}`)
    expect(res.status, res.text).toBe(200)
    expect(names(res.json())).toEqual(expected)
  })

  test('postgrest-js filter builders', async () => {
    const { data } = await h.client.from('people').select('name').in('id', [2, 4]).not('age', 'is', null).order('name')
    expect(names(data)).toEqual(['Bob', 'Dave'])
    const contains = await h.client.from('people').select('name').contains('tags', ['ops']).order('id')
    expect(names(contains.data)).toEqual(['Alice', 'Bob'])
    const text = await h.client.from('people').select('name').textSearch('bio', "'fox'", { config: 'english' }).order('id')
    expect(names(text.data)).toEqual(['Alice', 'Dave'])
    const either = await h.client.from('people').select('name').or('name.eq.Alice,age.gt.40').order('id')
    expect(names(either.data)).toEqual(['Alice', 'Dave'])
  })

  test('repeated keys are all applied', async () => {
    const res = await raw(h, '/people?select=name&id=gt.1&id=lt.4&order=id')
    expect(names(res.json())).toEqual(['Bob', 'Carol, "the great"'])
  })
})

describe('order, paging, counts', () => {
  test('order with several columns, nulls placement and JSON paths', async () => {
    const res = await raw(h, '/people?select=name&order=age.desc.nullslast,name.asc')
    expect(names(res.json())).toEqual(['Dave', 'Alice', 'Bob', 'Carol, "the great"'])
    const first = await raw(h, '/people?select=name&order=age.asc.nullsfirst')
    expect(names(first.json())[0]).toBe('Carol, "the great"')
    const json = await raw(h, '/people?select=name&order=meta->>level.desc.nullslast,id')
    expect(names(json.json())).toEqual(['Alice', 'Dave', 'Bob', 'Carol, "the great"'])
  })

  test('count=exact with limit/offset → 206 and Content-Range', async () => {
    const { data, count, status } = await h.client.from('people').select('name', { count: 'exact' }).order('id').range(1, 2)
    expect(names(data)).toEqual(['Bob', 'Carol, "the great"'])
    expect(count).toBe(4)
    expect(status).toBe(206)
    const res = await raw(h, '/people?select=id&limit=2', { headers: { Prefer: 'count=exact' } })
    expect(res.headers.get('content-range')).toBe('0-1/4')
    const all = await raw(h, '/people?select=id', { headers: { Prefer: 'count=exact' } })
    expect(all.status).toBe(200)
    expect(all.headers.get('content-range')).toBe('0-3/4')
  })

  test('empty page, no count, planned and estimated', async () => {
    const empty = await raw(h, '/people?select=id&id=gt.100', { headers: { Prefer: 'count=exact' } })
    expect(empty.headers.get('content-range')).toBe('*/0')
    expect(empty.text).toBe('[]')
    const none = await raw(h, '/people?select=id&limit=2')
    expect(none.headers.get('content-range')).toBe('0-1/*')
    const planned = await raw(h, '/people?select=id', { headers: { Prefer: 'count=planned' } })
    expect(planned.headers.get('content-range')).toMatch(/^0-3\/\d+$/)
    const estimated = await raw(h, '/people?select=id', { headers: { Prefer: 'count=estimated' } })
    expect(estimated.headers.get('content-range')).toMatch(/^0-3\/\d+$/)
  })

  test('Range header, and 416 past the end', async () => {
    const ranged = await raw(h, '/people?select=name&order=id', { headers: { Range: '1-2', 'Range-Unit': 'items' } })
    expect(names(ranged.json())).toEqual(['Bob', 'Carol, "the great"'])
    expect(ranged.headers.get('content-range')).toBe('1-2/*')
    const past = await raw(h, '/people?select=id&offset=10', { headers: { Prefer: 'count=exact' } })
    expect(past.status).toBe(416)
    expect(past.json()).toMatchObject({ code: 'PGRST103' })
    expect(past.headers.get('content-range')).toBe('*/4')
    const inverted = await raw(h, '/people', { headers: { Range: '5-1' } })
    expect(inverted.status).toBe(416)
  })

  test('maxRows caps the page', async () => {
    const capped = await startPostgrest({ maxRows: 2 })
    try {
      const res = await raw(capped, '/people?select=id&limit=50', { headers: { Prefer: 'count=exact' } })
      expect((res.json() as unknown[]).length).toBe(2)
      expect(res.headers.get('content-range')).toBe('0-1/4')
    } finally {
      await capped.close()
    }
  }, 60_000)
})

describe('media types', () => {
  test('single object and PGRST116', async () => {
    const one = await h.client.from('people').select('name').eq('id', 2).single()
    expect(one.data).toEqual({ name: 'Bob' })
    const none = await h.client.from('people').select('name').eq('id', 99).single()
    expect(none.status).toBe(406)
    expect(none.error).toMatchObject({ code: 'PGRST116', details: 'The result contains 0 rows' })
    const many = await raw(h, '/people?select=name', { headers: { Accept: 'application/vnd.pgrst.object+json' } })
    expect(many.status).toBe(406)
    const maybe = await h.client.from('people').select('name').eq('id', 99).maybeSingle()
    expect(maybe.data).toBeNull()
    expect(maybe.error).toBeNull()
  })

  test('CSV', async () => {
    const res = await raw(h, '/people?select=id,name,age&order=id&id=lte.3', { headers: { Accept: 'text/csv' } })
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/)
    expect(res.text).toBe('id,name,age\n1,Alice,34\n2,Bob,28\n3,"Carol, ""the great""",')
  })

  test('unsupported Accept → 406', async () => {
    const res = await raw(h, '/people', { headers: { Accept: 'application/xml' } })
    expect(res.status).toBe(406)
    expect(res.json()).toMatchObject({ code: 'PGRST107' })
  })
})

describe('errors', () => {
  test.each([
    ['/nope', 404, '42P01'],
    ['/secrets', 404, '42P01'],
    ['/people?select=nope', 400, '42703'],
    ['/people?nope=eq.1', 400, '42703'],
    ['/people?select=id,,', 400, 'PGRST100'],
    ['/people?id=zz.1', 400, 'PGRST100'],
    ['/people?id=eq.abc', 400, '22P02'],
    ['/people?or=(id.eq.1', 400, 'PGRST100'],
    ['/people?limit=-1', 400, 'PGRST100'],
    ['/people?select=name,incidents(title)', 300, 'PGRST201'],
    ['/people?select=name,config_changes(*)', 400, 'PGRST200'],
    ['/people?select=name&teams.name=eq.x', 400, 'PGRST108'],
    ['/people?select=name,created_at&order=zzz', 400, '42703'],
    ['/rpc/nope', 404, 'PGRST202'],
    ['/rpc/add_numbers?zz=1', 404, 'PGRST202'],
  ])('%s → %i %s', async (path, status, code) => {
    const res = await raw(h, path)
    expect(res.status, res.text).toBe(status)
    const body = res.json() as Record<string, unknown>
    expect(body.code).toBe(code)
    expect(Object.keys(body).sort()).toEqual(['code', 'details', 'hint', 'message'])
  })

  test('the client library sees PostgREST errors', async () => {
    const { error, status } = await h.client.from('people').select('nope')
    expect(status).toBe(400)
    expect(error).toMatchObject({ code: '42703', message: 'column people.nope does not exist' })
  })
})
