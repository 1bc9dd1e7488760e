import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { parseConnectionDocument } from '#contract/connections/connection-document.ts'
import { parseNotificationUrl } from '#contract/connections/notification-url.ts'
import { ResourceValidationError } from '#contract/resource-document.ts'

/** `Connection` YAML (resource-specs §3.5) as the flat `connections` row `npx lookout apply -f` stores. */

describe('parseConnectionDocument', () => {
  it('reads the reference example: a postgres block with a Secret reference', () => {
    const parsed = parseConnectionDocument(
      parse(`
apiVersion: mission-control.flanksource.com/v1
kind: Connection
metadata: {name: local-pg, namespace: default}
spec:
  postgres:
    url: {value: "postgres://$(username):$(password)@127.0.0.1:5432/app?sslmode=disable"}
    username: {value: app}
    password: {valueFrom: {secretKeyRef: {name: pg-creds, key: password}}}
`),
    )
    expect(parsed).toEqual({
      name: 'local-pg',
      namespace: 'default',
      row: {
        name: 'local-pg',
        namespace: 'default',
        type: 'postgres',
        url: 'postgres://$(username):$(password)@127.0.0.1:5432/app?sslmode=disable',
        username: 'app',
        password: 'secret://pg-creds/password',
        certificate: null,
        insecure_tls: false,
        properties: {},
      },
    })
  })

  it('maps typed blocks to the stored type and columns', () => {
    const doc = (spec: Record<string, unknown>) => ({ apiVersion: 'mission-control.flanksource.com/v1', kind: 'Connection', metadata: { name: 'c' }, spec })
    expect(parseConnectionDocument(doc({ mssql: { host: 'sql.example.test:1433', database: 'master', trustServerCertificate: true } })).row).toMatchObject({
      type: 'sql_server',
      url: 'sqlserver://sql.example.test:1433?database=master',
      insecure_tls: true,
      namespace: 'default',
    })
    expect(parseConnectionDocument(doc({ sftp: { host: 'files.example.test', username: 'u', password: { valueFrom: { configMapKeyRef: { name: 'cm', key: 'pw' } } } } })).row).toMatchObject({
      type: 'sftp',
      url: 'files.example.test',
      password: 'configmap://cm/pw',
      properties: { port: '22' },
    })
    expect(parseConnectionDocument(doc({ git: { url: 'https://git.example.test/repo.git', ref: 'main', certificate: { value: 'KEY' } }, properties: { depth: 1 } })).row).toMatchObject({
      type: 'git',
      certificate: 'KEY',
      properties: { ref: 'main', depth: '1' },
    })
    expect(parseConnectionDocument(doc({ awskms: { region: 'eu-west-1', accessKey: 'AK', secretKey: { value: 'SK' }, keyID: 'k1' } })).row).toMatchObject({
      type: 'aws_kms',
      username: 'AK',
      password: 'SK',
      properties: { region: 'eu-west-1', keyID: 'k1' },
    })
    expect(parseConnectionDocument(doc({ folder: { path: '/var/data' } })).row).toMatchObject({ type: 'folder', properties: { path: '/var/data' } })
    // The deprecated flat fields.
    expect(parseConnectionDocument(doc({ type: 'redis', url: 'redis:6379', password: 'pw', port: 6379 })).row).toMatchObject({ type: 'redis', url: 'redis:6379', password: 'pw', properties: { port: '6379' } })
  })

  it('builds the Shoutrrr URL of notification blocks, leaving Secret placeholders in', () => {
    const { row } = parseConnectionDocument({
      apiVersion: 'mission-control.flanksource.com/v1',
      kind: 'Connection',
      metadata: { name: 'mail', namespace: 'ops' },
      spec: { smtp: { host: 'smtp.example.test', port: 465, username: { value: 'mailer' }, password: { valueFrom: { secretKeyRef: { name: 'smtp', key: 'password' } } }, encryption: 'ImplicitTLS', fromAddress: 'ops@example.test', fromName: 'Ops', toAddresses: ['a@example.test', 'b@example.test'] } },
    })
    expect(row.type).toBe('email')
    expect(row.url).toContain('$(secret:smtp/password)')
    expect(parseNotificationUrl('email', row.url!)).toMatchObject({ host: 'smtp.example.test', port: 465, username: { value: 'mailer' }, encryption: 'ImplicitTLS', fromAddress: 'ops@example.test' })
    expect(row.properties).toEqual({ to: 'a@example.test,b@example.test' })
    const slack = parseConnectionDocument({ apiVersion: 'mission-control.flanksource.com/v1', kind: 'Connection', metadata: { name: 's' }, spec: { slack: { token: { value: 'xoxb-1-2' }, channel: 'C0123', color: 'good' } } })
    expect(slack.row).toMatchObject({ type: 'slack', properties: { color: 'good' } })
    expect(parseNotificationUrl('slack', slack.row.url!)).toMatchObject({ channel: 'C0123', botToken: { value: 'xoxb-1-2' } })
  })

  it('refuses bad documents with field paths', () => {
    const attempt = (document: unknown) => {
      try {
        parseConnectionDocument(document, [2])
      } catch (error) {
        expect(error).toBeInstanceOf(ResourceValidationError)
        return (error as ResourceValidationError).issues
      }
      throw new Error('accepted')
    }
    expect(attempt({ apiVersion: 'v1', kind: 'Connection', metadata: { name: 'x' }, spec: { http: { url: 'https://x' } } })).toContainEqual({ path: '[2].apiVersion', message: 'must be mission-control.flanksource.com/v1' })
    expect(attempt({ apiVersion: 'mission-control.flanksource.com/v1', kind: 'Connection', metadata: { name: 'x' }, spec: { http: {}, postgres: {} } })).toContainEqual({ path: '[2].spec', message: 'set only one connection type, not postgres, http' })
    expect(attempt({ apiVersion: 'mission-control.flanksource.com/v1', kind: 'Connection', metadata: {}, spec: { type: 'http' } })).toContainEqual({ path: '[2].metadata.name', message: 'is required' })
    expect(attempt({ apiVersion: 'mission-control.flanksource.com/v1', kind: 'Connection', metadata: { name: 'x' }, spec: { redis: { password: { valueFrom: {} } } } })[0]).toEqual({
      path: '[2].spec.redis.password.valueFrom',
      message: 'needs one of secretKeyRef, configMapKeyRef, helmRef, serviceAccount',
    })
  })
})
