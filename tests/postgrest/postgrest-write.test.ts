import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { raw, startPostgrest, type PostgrestHarness } from './postgrest-fixture.ts'
import { TEST_ENGINE } from '#tests/support/test-db.ts'

let h: PostgrestHarness

beforeAll(async () => {
  h = await startPostgrest()
}, 60_000)
afterAll(async () => {
  await h?.close()
})

describe('insert', () => {
  test('default return=minimal → 201 without body', async () => {
    const res = await raw(h, '/teams', { method: 'POST', body: JSON.stringify({ name: 'minimal' }) })
    expect(res.status).toBe(201)
    expect(res.text).toBe('')
  })

  test('representation with select, arrays and jsonb', async () => {
    const { data, error, status } = await h.client
      .from('people')
      .insert({ name: 'Eve', tags: ['a', 'b'], meta: { nested: { x: [1, 2] } } })
      .select('name,tags,meta,active')
      .single()
    expect(error).toBeNull()
    expect(status).toBe(201)
    expect(data).toEqual({ name: 'Eve', tags: ['a', 'b'], meta: { nested: { x: [1, 2] } }, active: true })
  })

  test('bulk insert with columns= (as postgrest-js sends it) fills missing keys with null', async () => {
    const { data, error } = await h.client
      .from('teams')
      .insert([{ name: 'bulk-1', created_by: 1 }, { name: 'bulk-2' }])
      .select('name,created_by')
    expect(error).toBeNull()
    expect(data).toEqual([
      { name: 'bulk-1', created_by: 1 },
      { name: 'bulk-2', created_by: null },
    ])
  })

  test('missing=default uses column defaults', async () => {
    const res = await raw(h, '/people?columns=name,active&select=name,active', {
      method: 'POST',
      headers: { Prefer: 'return=representation,missing=default' },
      body: JSON.stringify([{ name: 'Frank' }]),
    })
    expect(res.status).toBe(201)
    expect(res.json()).toEqual([{ name: 'Frank', active: true }])
    const withoutDefault = await raw(h, '/people?columns=name,active', {
      method: 'POST',
      body: JSON.stringify([{ name: 'Grace' }]),
    })
    expect(withoutDefault.status).toBe(400)
    expect(withoutDefault.json()).toMatchObject({ code: '23502' })
  })

  test('headers-only returns Location for a single PK row', async () => {
    const res = await raw(h, '/teams', {
      method: 'POST',
      headers: { Prefer: 'return=headers-only' },
      body: JSON.stringify({ name: 'located' }),
    })
    expect(res.status).toBe(201)
    expect(res.headers.get('location')).toMatch(/^\/teams\?id=eq\.\d+$/)
  })

  test('upsert: merge-duplicates and ignore-duplicates with on_conflict', async () => {
    const merged = await h.client
      .from('teams')
      .upsert({ name: 'core', created_by: 4 }, { onConflict: 'name' })
      .select('id,name,created_by')
    expect(merged.error).toBeNull()
    expect(merged.data).toEqual([{ id: 1, name: 'core', created_by: 4 }])
    const ignored = await h.client
      .from('teams')
      .upsert({ name: 'core', created_by: 2 }, { onConflict: 'name', ignoreDuplicates: true })
      .select('id')
    expect(ignored.data).toEqual([])
    const byPk = await raw(h, '/teams?select=name', {
      method: 'POST',
      headers: { Prefer: 'resolution=merge-duplicates,return=representation' },
      body: JSON.stringify({ id: 1, name: 'core-renamed' }),
    })
    expect(byPk.json()).toEqual([{ name: 'core-renamed' }])
    await raw(h, '/teams?id=eq.1', { method: 'PATCH', body: JSON.stringify({ name: 'core', created_by: 1 }) })
  })

  test('constraint errors map to PostgREST statuses', async () => {
    const duplicate = await h.client.from('teams').insert({ name: 'edge' })
    expect(duplicate.status).toBe(409)
    expect(duplicate.error?.code).toBe('23505')
    const fk = await h.client.from('teams').insert({ name: 'orphan', created_by: 999 })
    expect(fk.status).toBe(409)
    expect(fk.error?.code).toBe('23503')
    const notNull = await h.client.from('teams').insert({ created_by: 1 })
    expect(notNull.status).toBe(400)
    expect(notNull.error?.code).toBe('23502')
    const badType = await h.client.from('people').insert({ name: 'x', age: 'old' })
    expect(badType.status).toBe(400)
    expect(badType.error?.code).toBe('22P02')
    const unknown = await h.client.from('people').insert({ name: 'x', nope: 1 })
    expect(unknown.status).toBe(400)
    expect(unknown.error?.code).toBe('PGRST204')
    const invalid = await raw(h, '/people', { method: 'POST', body: '{"name":' })
    expect(invalid.status).toBe(400)
    expect(invalid.json()).toMatchObject({ code: 'PGRST102' })
  })

  test('a view that is not updatable answers with the database error (55000 → 500, as PostgREST)', async () => {
    const res = await raw(h, '/configs?select=name', {
      method: 'POST',
      headers: { Prefer: 'return=representation' },
      body: JSON.stringify({ name: 'via-view', type: 'Test' }),
    })
    expect(res.status).toBe(500)
    expect(res.json()).toMatchObject({ code: '55000', message: 'cannot insert into view "configs"' })
  })
})

describe('update and delete', () => {
  test('PATCH returns updated rows with representation; 204 when minimal', async () => {
    const { data, status } = await h.client.from('people').update({ age: 35 }).eq('id', 1).select('id,age')
    expect(status).toBe(200)
    expect(data).toEqual([{ id: 1, age: 35 }])
    const minimal = await raw(h, '/people?id=eq.1', { method: 'PATCH', body: JSON.stringify({ age: 34 }) })
    expect(minimal.status).toBe(204)
    const none = await h.client.from('people').update({ age: 1 }).eq('id', 999).select()
    expect(none.data).toEqual([])
  })

  test('"now()" for a timestamp column means the server time', async () => {
    const before = Date.now()
    const { data } = await h.client
      .from('config_items')
      .update({ deleted_at: 'now()' })
      .eq('name', 'pod-a')
      .select('deleted_at')
      .single()
    const deletedAt = Date.parse((data as { deleted_at: string }).deleted_at)
    expect(deletedAt).toBeGreaterThan(before - 60_000)
    const visible = await h.client.from('configs').select('name').eq('name', 'pod-a')
    expect(visible.data).toEqual([])
    await h.client.from('config_items').update({ deleted_at: null }).eq('name', 'pod-a')
  })

  test('unfiltered PATCH/DELETE are refused unless limited', async () => {
    const patch = await raw(h, '/people', { method: 'PATCH', body: JSON.stringify({ age: 1 }) })
    expect(patch.status).toBe(400)
    expect(patch.json()).toEqual({ code: '21000', details: null, hint: null, message: 'UPDATE requires a WHERE clause' })
    const del = await raw(h, '/people', { method: 'DELETE' })
    expect(del.status).toBe(400)
    expect(del.json()).toMatchObject({ code: '21000', message: 'DELETE requires a WHERE clause' })
    const limited = await raw(h, '/teams?order=id.desc&limit=1&select=name', {
      method: 'PATCH',
      headers: { Prefer: 'return=representation' },
      body: JSON.stringify({ name: 'last-team' }),
    })
    expect(limited.status).toBe(200)
    expect((limited.json() as unknown[]).length).toBe(1)
  })

  test('DELETE with filters and representation, single-object rollback', async () => {
    await h.client.from('teams').insert([{ name: 'del-1' }, { name: 'del-2' }])
    const tooMany = await raw(h, '/teams?name=like.del-*', {
      method: 'DELETE',
      headers: { Prefer: 'return=representation', Accept: 'application/vnd.pgrst.object+json' },
    })
    expect(tooMany.status).toBe(406)
    const still = await h.client.from('teams').select('name').like('name', 'del-*')
    expect(still.data?.length).toBe(2)
    const { data, status } = await h.client.from('teams').delete().like('name', 'del-*').select('name').order('name')
    expect(status).toBe(200)
    expect(data).toEqual([{ name: 'del-1' }, { name: 'del-2' }])
    const gone = await raw(h, '/teams?name=eq.del-1', { method: 'DELETE' })
    expect(gone.status).toBe(204)
  })
})

describe('rpc', () => {
  test('scalar functions with named args and defaults, GET and POST', async () => {
    expect((await h.client.rpc('add_numbers', { a: 2, b: 5 })).data).toBe(7)
    expect((await h.client.rpc('add_numbers', { a: 2 }, { get: true })).data).toBe(3)
    expect((await h.client.rpc('people_count')).data).toBeGreaterThan(3)
  })

  test('set-returning functions are filterable, orderable and limitable', async () => {
    const { data } = await h.client.rpc('search_people', { q: 'a' }).gt('id', 1).lte('id', 4).select('name').order('name', { ascending: false }).limit(2)
    expect(data).toEqual([{ name: 'Dave' }, { name: 'Carol, "the great"' }])
    const table = await raw(h, '/rpc/team_sizes?min_size=2&order=team')
    expect(table.json()).toEqual([
      { team: 'core', size: 2 },
      { team: 'edge', size: 2 },
    ])
    const embedded = await raw(h, '/rpc/search_people?q=Ali&select=name,team_members(role)')
    expect(embedded.json()).toEqual([{ name: 'Alice', team_members: [{ role: 'lead' }] }])
  })

  test('single composite returns an object; json argument; variadic; void', async () => {
    expect((await raw(h, '/rpc/first_person?select=name')).json()).toEqual({ name: 'Alice' })
    const echo = await raw(h, '/rpc/echo_json', { method: 'POST', body: '{"any":[1,"two"]}' })
    expect(echo.json()).toEqual({ any: [1, 'two'] })
    const variadic = await raw(h, '/rpc/sum_all', { method: 'POST', body: '{"nums":[1,2,3]}' })
    expect(variadic.json()).toBe(6)
    const voided = await raw(h, '/rpc/rename_person', { method: 'POST', body: '{"person":4,"new_name":"David"}' })
    expect(voided.status).toBe(204)
    expect((await h.client.from('people').select('name').eq('id', 4).single()).data).toEqual({ name: 'David' })
    await h.client.rpc('rename_person', { person: 4, new_name: 'Dave' })
  })

  test('GET calls run read-only; unknown functions and arguments → PGRST202', async () => {
    const readOnly = await raw(h, '/rpc/rename_person?person=4&new_name=Nope')
    expect(readOnly.status).toBe(405)
    expect(readOnly.json()).toMatchObject({ code: '25006' })
    const unknown = await h.client.rpc('nope')
    expect(unknown.status).toBe(404)
    expect(unknown.error?.code).toBe('PGRST202')
    const badArgs = await h.client.rpc('add_numbers', { x: 1 })
    expect(badArgs.error?.code).toBe('PGRST202')
  })
})

describe('safety', () => {
  test('authorize runs before any SQL and its refusal is PostgREST-shaped', async () => {
    const authorize = vi.fn(async (request: { relation: string; kind: string; action: string }) =>
      request.relation === 'people' && request.action !== 'read'
        ? ({ allowed: false, status: 403, message: 'permission denied for table people' } as const)
        : ({ allowed: true } as const),
    )
    const guarded = await startPostgrest({ authorize })
    try {
      const read = await raw(guarded, '/people?select=id&limit=1')
      expect(read.status).toBe(200)
      const write = await raw(guarded, '/people?id=eq.1', { method: 'DELETE' })
      expect(write.status).toBe(403)
      expect(write.json()).toMatchObject({ code: '42501', message: 'permission denied for table people' })
      await raw(guarded, '/rpc/add_numbers?a=1')
      await raw(guarded, '/not_a_table')
      expect(authorize.mock.calls.map(([call]) => [call.relation, call.kind, call.action])).toEqual([
        ['people', 'table', 'read'],
        ['people', 'table', 'delete'],
        ['add_numbers', 'rpc', 'read'],
        ['not_a_table', 'table', 'read'],
      ])
      const kept = await raw(guarded, '/people?id=eq.1&select=id')
      expect(kept.json()).toEqual([{ id: 1 }])
    } finally {
      await guarded.close()
    }
  }, 60_000)

  test.skipIf(TEST_ENGINE === 'pglite')('statement timeout cancels long queries (57014 → 500)', async () => {
    const limited = await startPostgrest({ statementTimeoutMs: 200 })
    try {
      const res = await raw(limited, '/rpc/slow', { method: 'POST', body: '{"seconds":2}' })
      expect(res.status).toBe(500)
      expect(res.json()).toMatchObject({ code: '57014' })
    } finally {
      await limited.close()
    }
  }, 60_000)

  test('unsupported methods and content types', async () => {
    expect((await raw(h, '/people', { method: 'PUT', body: '{}' })).status).toBe(405)
    const xml = await raw(h, '/people', { method: 'POST', headers: { 'Content-Type': 'application/xml' }, body: '<a/>' })
    expect(xml.status).toBe(415)
  })
})
