import { parseWithZod } from '@conform-to/zod'
import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import { getScraperTypeForm, SCRAPER_TYPE_FORMS, scraperTypeFormConstraint } from '#app/lib/scraper-type-fields.ts'
import { pathOfMessage, scrapeConfigFromForm, scrapeConfigYamlFromForm, scraperFieldOfPath, scraperFormIssues, scraperTypeFormSchema } from '#app/lib/scraper-type-forms.ts'
import { parseScrapeConfigObject, SCRAPER_KINDS } from '#contract/catalog/scrape-config-document.ts'

/** The scraper editor's type forms: what each asks, and that what it builds is a ScrapeConfig the data API accepts. */

function formData(entries: Array<[string, string]>): FormData {
  const data = new FormData()
  for (const [name, value] of entries) data.append(name, value)
  return data
}

/** Every field filled with its example (a select with its first option). */
function exampleAnswers(type: string): Record<string, string> {
  const form = getScraperTypeForm(type)!
  const values: Record<string, string> = { configName: `form-${type.toLowerCase()}`, configNamespace: 'scrapers' }
  for (const field of form.fields) values[field.name] = field.kind === 'select' ? field.options![0]! : (field.placeholder ?? 'value')
  return values
}

describe('scraper type forms', () => {
  it('offer only scraper kinds the ScrapeConfig schema knows', () => {
    for (const form of SCRAPER_TYPE_FORMS) expect(SCRAPER_KINDS, form.type).toContain(form.type)
  })

  it('require the spec’s fields (002 §5) and the ScrapeConfig name', () => {
    const required = (type: string) => Object.entries(scraperTypeFormConstraint(getScraperTypeForm(type)!)).filter(([, rule]) => rule.required).map(([name]) => name).sort()
    expect(required('kubernetes')).toEqual(['clusterName', 'configName'])
    expect(required('azure')).toEqual(['configName', 'connection'])
    expect(required('githubActions')).toEqual(['configName', 'owner', 'repository'])
    expect(required('file')).toEqual(['configName', 'format', 'icon'])
    expect(required('sql')).toEqual(['configName', 'connection', 'query'])
  })

  it('turn every type filled with its examples into a ScrapeConfig the data API accepts, and the Code tab starts from it', () => {
    for (const form of SCRAPER_TYPE_FORMS) {
      const values = exampleAnswers(form.type)
      const built = scrapeConfigFromForm(form, values)
      expect(built.ok, form.type).toBe(true)
      if (!built.ok) continue
      const parsed = parseScrapeConfigObject(built.document)
      expect(parsed).toMatchObject({ name: values.configName, namespace: 'scrapers', spec: { schedule: '@every 60m' } })
      expect((parsed.spec as Record<string, unknown>)[form.type], form.type).toHaveLength(1)
      expect(scraperFormIssues(form, built.document)).toEqual({ errors: {}, rest: [] })
      expect(parse(scrapeConfigYamlFromForm(form, values))).toEqual(built.document)
    }
  })

  it('builds lists, nested fields and trims answers; names the fields at fault', () => {
    const file = getScraperTypeForm('file')!
    expect(scrapeConfigFromForm(file, { configName: 'inventory', schedule: '@every 5m', paths: '/a/*.yaml, /b/*.json', format: 'yaml', icon: 'file', type: 'Inventory::Host', id: '$.id' })).toEqual({
      ok: true,
      document: {
        apiVersion: 'configs.flanksource.com/v1', kind: 'ScrapeConfig', metadata: { name: 'inventory', namespace: 'default' },
        spec: { schedule: '@every 5m', file: [{ paths: ['/a/*.yaml', '/b/*.json'], format: 'yaml', icon: 'file', type: 'Inventory::Host', id: '$.id' }] },
      },
    })
    expect(scrapeConfigFromForm(getScraperTypeForm('http')!, { 'pagination.nextPageExpr': 'body.next', method: 'FETCH' })).toEqual({
      ok: false,
      errors: { url: 'URL is required.', method: 'Method must be one of GET, POST, PUT, PATCH.', configName: 'Name is required.' },
    })
  })

  it('puts the schema’s refusals on the form’s fields', () => {
    const file = getScraperTypeForm('file')!
    // Neither paths nor url: the ScrapeConfig schema refuses the entry, on `paths`.
    const built = scrapeConfigFromForm(file, { configName: 'files', format: 'json', icon: 'file' })
    expect(built.ok).toBe(true)
    if (built.ok) expect(scraperFormIssues(file, built.document).errors).toEqual({ paths: 'set paths or url' })
    expect(scraperFieldOfPath(getScraperTypeForm('http')!, 'spec.http[0].pagination.nextPageExpr')).toBe('pagination.nextPageExpr')
    expect(scraperFieldOfPath(getScraperTypeForm('sql')!, 'spec.sql[0].query')).toBe('query')
    expect(scraperFieldOfPath(file, 'metadata.name')).toBe('configName')
    expect(scraperFieldOfPath(file, 'spec.retention')).toBeNull()
    expect(pathOfMessage('spec.sql[0].connection: must not be empty')).toBe('spec.sql[0].connection')
    expect(pathOfMessage('something else')).toBeNull()
  })

  it('parses a post: Create checks each answer, Edit as YAML takes them as they are', () => {
    const schema = scraperTypeFormSchema(getScraperTypeForm('kubernetes')!)
    expect(parseWithZod(formData([['scraperType', 'kubernetes'], ['intent', 'create-from-form'], ['configName', 'k8s']]), { schema }).reply().error).toEqual({ clusterName: ['Cluster name is required.'] })
    const toCode = parseWithZod(formData([['scraperType', 'kubernetes'], ['intent', 'form-to-code'], ['kubeconfig.value', 'secret']]), { schema })
    expect(toCode.status).toBe('success')
    // A post for another type is not this form's.
    expect(parseWithZod(formData([['scraperType', 'sql'], ['configName', 'x'], ['clusterName', 'c']]), { schema }).status).toBe('error')
  })
})
