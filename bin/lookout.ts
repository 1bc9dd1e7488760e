#!/usr/bin/env tsx
/**
 * lookout — apply Canary, ScrapeConfig, Topology, Playbook, Connection, Notification,
 * NotificationSilence and View resources from YAML to a running Lookout.
 *
 *   lookout apply -f canary.yaml        (a file, or a folder: every .yaml/.yml/.json inside, recursively)
 *   lookout delete -f canary.yaml       (soft-deletes the resources the files name)
 *   lookout get canaries [-n namespace] [-o yaml]
 *
 * Reads LOOKOUT_URL (default http://127.0.0.1:3000) and LOOKOUT_TOKEN (sent as a bearer token).
 * Files are validated locally first, so a bad spec fails with its file and field path before
 * anything is sent; the server validates again and answers 400 with the same paths.
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { CanaryValidationError, parseCanaryObject, type CanaryInput, type ValidationIssue } from '#contract/canary/canary-document.ts'
import {
  documentKind,
  parseScrapeConfigObject,
  resourceDocuments,
} from '#contract/catalog/scrape-config-document.ts'
import { parseTopologyObject } from '#contract/topology/topology-document.ts'
import { parsePlaybookDocument, playbookColumnsOf } from '#contract/playbook/playbook-document.ts'
import { parseConnectionDocument } from '#contract/connections/connection-document.ts'
import { ResourceValidationError } from '#contract/resource-document.ts'
import { parseNotificationDocument, parseNotificationSilenceDocument, type SilenceColumns } from '#contract/notifications/notification-document.ts'
import { isUuid } from '#contract/uuid.ts'
import { parseViewObject } from '#contract/views/view-document.ts'
import { ruleColumnsOf, RuleSpecProblem, type RecipientResolver } from '#app/lib/notification-forms.ts'

const USAGE = `usage:
  lookout apply -f <file|folder>
  lookout delete -f <file|folder>
  lookout get canaries [-n <namespace>] [-o yaml|json]

environment: LOOKOUT_URL (default http://127.0.0.1:3000), LOOKOUT_TOKEN (bearer token)`

class CliError extends Error {}

// A CLI's output is its interface, so it writes to stdout directly rather than through a logger.
const print = (line: string) => void process.stdout.write(`${line}\n`)

function option(args: string[], ...names: string[]): string | undefined {
  const index = args.findIndex((arg) => names.includes(arg))
  if (index === -1) return undefined
  const value = args[index + 1]
  if (!value || value.startsWith('-')) throw new CliError(`${args[index]} needs a value`)
  return value
}

async function filesUnder(target: string): Promise<string[]> {
  const info = await stat(target).catch(() => null)
  if (!info) throw new CliError(`${target}: no such file or folder`)
  if (info.isFile()) return [target]
  const files: string[] = []
  for (const entry of (await readdir(target, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(target, entry.name)
    if (entry.isDirectory()) files.push(...(await filesUnder(full)))
    else if (/\.(ya?ml|json)$/i.test(entry.name)) files.push(full)
  }
  return files
}

/**
 * A resource stored as a row through the data API (source ConfigFile): ScrapeConfigs in
 * config_scrapers, Topologies in topologies, Playbooks in playbooks, Connections in connections,
 * Notifications in notifications and NotificationSilences in notification_silences. Canaries go
 * through their own route, which also creates their checks.
 */
type RowResource = {
  kind: 'scrapeconfig' | 'topology' | 'playbook' | 'connection' | 'notification' | 'notificationsilence' | 'view'
  table: 'config_scrapers' | 'topologies' | 'playbooks' | 'connections' | 'notifications' | 'notification_silences' | 'views'
  name: string
  namespace: string
  fields: Record<string, unknown>
  /** Columns only the server can fill in: a rule's people, teams and playbooks, found by name. */
  resolve?: () => Promise<Record<string, unknown>>
}

/**
 * The playbook write guard (http-api §4.6) keeps playbooks the console did not create out of
 * its hands; this header tells it the writer is the file applier, owner of source ConfigFile.
 */
const rowHeaders = (resource: RowResource): Record<string, string> => (resource.table === 'playbooks' ? { 'x-lookout-source': 'ConfigFile' } : {})

type FileResources = { file: string; inputs: CanaryInput[]; rows: RowResource[] }

// Every resource kind's validation error is a ResourceValidationError (contract/resource-document.ts).
const isValidationError = (error: unknown): error is ResourceValidationError => error instanceof ResourceValidationError

function rowResource(document: unknown, prefix: (string | number)[]): RowResource | null {
  switch (documentKind(document)) {
    case 'ScrapeConfig': {
      const scraper = parseScrapeConfigObject(document, prefix)
      const fields = { spec: scraper.spec, ...(scraper.description ? { description: scraper.description } : {}) }
      return { kind: 'scrapeconfig', table: 'config_scrapers', name: scraper.name, namespace: scraper.namespace, fields }
    }
    case 'Topology': {
      const topology = parseTopologyObject(document, prefix)
      // Stored as written: the schema only judges it (quoted numbers stay quoted, unknown keys stay).
      const spec = (document as { spec?: unknown }).spec ?? {}
      return { kind: 'topology', table: 'topologies', name: topology.name, namespace: topology.namespace, fields: { spec, labels: topology.labels } }
    }
    case 'View': {
      const view = parseViewObject(document, prefix)
      const spec = (document as { spec?: unknown }).spec ?? {}
      return { kind: 'view', table: 'views', name: view.name, namespace: view.namespace, fields: { spec, labels: view.labels } }
    }
    case 'Playbook': {
      const playbook = parsePlaybookDocument(document, prefix)
      const spec = (document as { spec?: unknown }).spec ?? {}
      return { kind: 'playbook', table: 'playbooks', name: playbook.name, namespace: playbook.namespace, fields: { spec, ...playbookColumnsOf(playbook.name, playbook.spec) } }
    }
    case 'Connection': {
      const connection = parseConnectionDocument(document, prefix)
      const { name: _name, namespace: _namespace, ...fields } = connection.row
      return { kind: 'connection', table: 'connections', name: connection.name, namespace: connection.namespace, fields }
    }
    case 'Notification': {
      const { name, namespace, spec } = parseNotificationDocument(document, prefix)
      // The rule editor's translation, so a rule applied from a file reads back the same in the console.
      const resolve = async () => {
        const { name: _name, namespace: _namespace, ...columns } = await ruleColumnsOf(name, namespace, spec, recipientResolver, false)
        return columns
      }
      return { kind: 'notification', table: 'notifications', name, namespace, fields: {}, resolve }
    }
    case 'NotificationSilence': {
      const silence = parseNotificationSilenceDocument(document, prefix)
      return { kind: 'notificationsilence', table: 'notification_silences', name: silence.name, namespace: silence.namespace, fields: silence.columns }
    }
    default:
      return null
  }
}

/** Every file's documents, all validated before anything is sent. */
async function readResources(target: string): Promise<FileResources[]> {
  const files = await filesUnder(target)
  if (files.length === 0) throw new CliError(`${target}: no .yaml, .yml or .json files`)
  const parsed: FileResources[] = []
  const problems: string[] = []
  const report = (file: string, issues: ValidationIssue[]) => {
    for (const issue of issues) problems.push(`${file}: ${issue.path ? `${issue.path}: ` : ''}${issue.message}`)
  }
  for (const file of files) {
    try {
      const documents = resourceDocuments(await readFile(file, 'utf8'))
      if (documents.length === 0) throw new CanaryValidationError([{ path: '', message: 'no Canary, ScrapeConfig, Topology, Playbook, Connection, Notification, NotificationSilence or View document found' }])
      const resources: FileResources = { file, inputs: [], rows: [] }
      documents.forEach((document, index) => {
        const prefix = documents.length > 1 ? [index] : []
        try {
          const row = rowResource(document, prefix)
          if (row) resources.rows.push(row)
          else resources.inputs.push(parseCanaryObject(document, prefix))
        } catch (error) {
          if (isValidationError(error)) report(file, error.issues)
          else throw error
        }
      })
      parsed.push(resources)
    } catch (error) {
      if (isValidationError(error)) report(file, error.issues)
      else throw error
    }
  }
  if (problems.length > 0) throw new CliError(`invalid spec:\n  ${problems.join('\n  ')}`)
  return parsed
}

function endpoint(route: string, subBase = '/api/canary'): string {
  const base = (process.env.LOOKOUT_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '')
  return `${base}${subBase}${route}`
}

async function call(method: string, route: string, body?: unknown, accept = 'application/json', subBase = '/api/canary', extraHeaders: Record<string, string> = {}): Promise<Response> {
  const headers: Record<string, string> = { accept, ...extraHeaders }
  if (process.env.LOOKOUT_TOKEN) headers.authorization = `Bearer ${process.env.LOOKOUT_TOKEN}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  let response: Response
  try {
    response = await fetch(endpoint(route, subBase), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  } catch (error) {
    throw new CliError(`cannot reach ${endpoint(route, subBase)}: ${(error as Error).cause ?? (error as Error).message}`)
  }
  if (response.status === 401) throw new CliError(`${response.status}: not allowed (check LOOKOUT_TOKEN)`)
  // A 403 may name its reason (e.g. exec checks need the exec permission): show it.
  if (response.status === 403) throw new CliError(`${response.status}: not allowed (check LOOKOUT_TOKEN): ${await errorText(response)}`)
  return response
}

async function errorText(response: Response): Promise<string> {
  const text = await response.text()
  try {
    const body = JSON.parse(text) as { message?: string; error?: string; issues?: { path: string; message: string }[] }
    if (body.issues?.length) return body.issues.map((issue) => `${issue.path}: ${issue.message}`).join('\n  ')
    return body.message ?? body.error ?? text
  } catch {
    return text
  }
}

/** The live row with this name and namespace, through the data API. */
async function findRow(resource: RowResource): Promise<string | undefined> {
  const query = `?select=id&deleted_at=is.null&name=eq.${encodeURIComponent(resource.name)}&namespace=eq.${encodeURIComponent(resource.namespace)}`
  const response = await call('GET', `/${resource.table}${query}`, undefined, 'application/json', '/api/db')
  if (!response.ok) throw new CliError(`${resource.namespace}/${resource.name}: ${response.status} ${await errorText(response)}`)
  return ((await response.json()) as { id: string }[])[0]?.id
}

/** Finds people by id or e-mail, teams by id or name and playbooks by id, name or namespace/name, as the rule editor does. */
const recipientResolver: RecipientResolver = {
  person: (ref) => findId('people', { [isUuid(ref) ? 'id' : 'email']: ref }),
  team: (ref) => findId('teams', { [isUuid(ref) ? 'id' : 'name']: ref }),
  playbook: (ref: string) => {
    // isUuid narrows its argument: a copy keeps `ref` a string after the id case.
    const text: string = ref
    if (isUuid(ref)) return findId('playbooks', { id: ref })
    const [namespace, name] = text.includes('/') ? text.split('/', 2) : [undefined, text]
    return findId('playbooks', { name: name!, ...(namespace ? { namespace } : {}) })
  },
}

async function findId(table: string, match: Record<string, string>): Promise<string | null> {
  const filters = Object.entries(match).map(([column, value]) => `&${column}=eq.${encodeURIComponent(value)}`).join('')
  const response = await call('GET', `/${table}?select=id&deleted_at=is.null${filters}&limit=1`, undefined, 'application/json', '/api/db')
  if (!response.ok) throw new CliError(`${table}: ${response.status} ${await errorText(response)}`)
  return ((await response.json()) as { id: string }[])[0]?.id ?? null
}

async function resolvedFields(file: string, resource: RowResource): Promise<Record<string, unknown>> {
  if (!resource.resolve) return resource.fields
  try {
    return { ...resource.fields, ...(await resource.resolve()) }
  } catch (error) {
    // "to.person: no person "x" was found": the spec's field, like a validation problem.
    if (error instanceof RuleSpecProblem) throw new CliError(`${file}: ${resource.namespace}/${resource.name}: spec.${error.message}`)
    throw error
  }
}

/**
 * The silence API judges what the data API would store as given (the filter's CEL, each
 * selector), so a silence is created through `POST /notification/silence` and a changed one is
 * first put to the preview, which judges its target the same way.
 */
async function checkSilenceTarget(file: string, resource: RowResource, columns: SilenceColumns): Promise<void> {
  const { description: _description, from: _from, until: _until, ...target } = columns
  const response = await call('POST', '/silence_preview', { ...target, limit: 1 }, 'application/json', '/api/notification')
  if (!response.ok) throw new CliError(`${file}: ${resource.namespace}/${resource.name}: ${response.status}\n  ${await errorText(response)}`)
}

/**
 * The silence API stores a new silence as the UI's, without a namespace and without answering its
 * id (http-api §2.3.2); the newest such row of that name is the one just made, and takes the
 * file's namespace and source.
 */
async function createSilence(file: string, resource: RowResource, columns: SilenceColumns): Promise<Response> {
  const created = await call('POST', '/silence', { name: resource.name, ...columns }, 'application/json', '/api/notification')
  if (!created.ok) return created
  const query = `?select=id&deleted_at=is.null&source=eq.UI&namespace=is.null&name=eq.${encodeURIComponent(resource.name)}&order=created_at.desc&limit=1`
  const found = await call('GET', `/notification_silences${query}`, undefined, 'application/json', '/api/db')
  if (!found.ok) return found
  const id = ((await found.json()) as { id: string }[])[0]?.id
  if (!id) throw new CliError(`${file}: ${resource.namespace}/${resource.name}: the silence was created but could not be found to set its namespace`)
  return call('PATCH', `/notification_silences?id=eq.${id}`, { namespace: resource.namespace, source: 'ConfigFile' }, 'application/json', '/api/db')
}

/** Created (source ConfigFile), or its fields replaced. */
async function applyRow(file: string, resource: RowResource): Promise<void> {
  const id = await findRow(resource)
  const fields = await resolvedFields(file, resource)
  let response: Response
  if (resource.table === 'notification_silences') {
    const columns = fields as SilenceColumns
    if (id) await checkSilenceTarget(file, resource, columns)
    response = id
      ? await call('PATCH', `/${resource.table}?id=eq.${id}`, columns, 'application/json', '/api/db')
      : await createSilence(file, resource, columns)
  } else {
    response = id
      ? await call('PATCH', `/${resource.table}?id=eq.${id}`, fields, 'application/json', '/api/db', rowHeaders(resource))
      : await call('POST', `/${resource.table}`, { name: resource.name, namespace: resource.namespace, source: 'ConfigFile', ...fields }, 'application/json', '/api/db', rowHeaders(resource))
  }
  if (!response.ok) throw new CliError(`${file}: ${resource.namespace}/${resource.name}: ${response.status}\n  ${await errorText(response)}`)
  print(`${resource.kind} ${resource.namespace}/${resource.name} ${id ? 'configured' : 'created'}`)
}

async function apply(target: string): Promise<void> {
  for (const { file, inputs, rows } of await readResources(target)) {
    for (const row of rows) await applyRow(file, row)
    for (const input of inputs) {
      const response = await call('POST', '/api/canaries', input)
      if (!response.ok) throw new CliError(`${file}: ${input.namespace}/${input.name}: ${response.status}\n  ${await errorText(response)}`)
      const body = (await response.json()) as { canaries: { name: string; namespace: string; created: boolean; checks: unknown[]; error?: string }[] }
      for (const canary of body.canaries) {
        print(`canary ${canary.namespace}/${canary.name} ${canary.created ? 'created' : 'configured'} (${canary.checks.length} checks)${canary.error ? ` — not scheduled: ${canary.error}` : ''}`)
      }
    }
  }
}

async function remove(target: string): Promise<void> {
  for (const { inputs, rows } of await readResources(target)) {
    for (const resource of rows) {
      const id = await findRow(resource)
      if (!id) {
        print(`${resource.kind} ${resource.namespace}/${resource.name} not found`)
        continue
      }
      const response = await call('PATCH', `/${resource.table}?id=eq.${id}`, { deleted_at: new Date().toISOString() }, 'application/json', '/api/db', rowHeaders(resource))
      if (!response.ok) throw new CliError(`${resource.namespace}/${resource.name}: ${response.status} ${await errorText(response)}`)
      print(`${resource.kind} ${resource.namespace}/${resource.name} deleted`)
    }
    for (const input of inputs) {
      const response = await call('DELETE', `/api/canaries/${encodeURIComponent(input.name)}?namespace=${encodeURIComponent(input.namespace)}`)
      if (response.status === 404) print(`canary ${input.namespace}/${input.name} not found`)
      else if (!response.ok) throw new CliError(`${input.namespace}/${input.name}: ${response.status} ${await errorText(response)}`)
      else print(`canary ${input.namespace}/${input.name} deleted`)
    }
  }
}

async function get(args: string[]): Promise<void> {
  if (args[0] !== 'canaries' && args[0] !== 'canary') throw new CliError(USAGE)
  const namespace = option(args, '-n', '--namespace')
  const output = option(args, '-o', '--output') ?? 'table'
  const query = namespace ? `?namespace=${encodeURIComponent(namespace)}` : ''
  if (output === 'yaml') {
    const response = await call('GET', `/api/canaries${query}${query ? '&' : '?'}format=yaml`, undefined, 'application/yaml')
    if (!response.ok) throw new CliError(await errorText(response))
    process.stdout.write(await response.text())
    return
  }
  const response = await call('GET', `/api/canaries${query}`)
  if (!response.ok) throw new CliError(await errorText(response))
  const canaries = (await response.json()) as { name: string; namespace: string; checks: { status: string | null }[] }[]
  if (output === 'json') return void print(JSON.stringify(canaries, null, 2))
  print(['NAMESPACE', 'NAME', 'CHECKS', 'HEALTHY'].join('\t'))
  for (const canary of canaries) {
    print([canary.namespace, canary.name, canary.checks.length, canary.checks.filter((check) => check.status === 'healthy').length].join('\t'))
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv
  try {
    if (command === 'apply' || command === 'delete') {
      const target = option(args, '-f', '--filename')
      if (!target) throw new CliError(`${command} needs -f <file|folder>\n\n${USAGE}`)
      await (command === 'apply' ? apply(target) : remove(target))
    } else if (command === 'get') await get(args)
    else {
      print(USAGE)
      return command === undefined || command === 'help' || command === '--help' ? 0 : 2
    }
    return 0
  } catch (error) {
    if (error instanceof CliError) {
      console.error(`error: ${error.message}`)
      return 1
    }
    throw error
  }
}

process.exitCode = await main(process.argv.slice(2))
