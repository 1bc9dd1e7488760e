import { describe, expect, it } from 'vitest'
import { lineMatches, parseLabelText, severityVariant } from '#app/components/logs/log-vocabulary.ts'
import { parseLogPageSearch } from '#app/lib/log-search-params.ts'
import { logSearchBody } from '#app/lib/logs.server.ts'

const params = (text: string) => parseLogPageSearch(new URLSearchParams(text))
const ID = '0190f0f0-0000-7000-8000-00000000beef'

describe('/logs URL', () => {
  it('reads a backend or component source and falls back to defaults for bad values', () => {
    expect(params('source=backend%3Aloki&range=6h&limit=1000&labels=app%3Dweb&query=timeout&filter=db')).toEqual({
      source: { kind: 'backend', name: 'loki' },
      range: '6h',
      labels: 'app=web',
      query: 'timeout',
      filter: 'db',
      limit: 1000,
    })
    expect(params(`source=component%3A${ID}`).source).toEqual({ kind: 'component', id: ID })
    expect(params('source=component%3Anot-a-uuid&range=3y&limit=7')).toEqual({ source: null, range: '1h', labels: '', query: '', filter: '', limit: 500 })
    expect(params(`id=${ID}`).source).toEqual({ kind: 'component', id: ID })
    expect(params('backend=files').source).toEqual({ kind: 'backend', name: 'files' })
  })

  it('turns the form into the API body, and says which labels do not parse', () => {
    const search = params('range=15m&labels=app%3Dweb%2C%20level%3D%22error%22&query=timeout')
    expect(logSearchBody({ kind: 'backend', name: 'loki' }, search)).toEqual({
      body: { backend: 'loki', start: 'now-15m', labels: { app: 'web', level: 'error' }, query: 'timeout', limit: 500 },
      problem: null,
    })
    expect(logSearchBody({ kind: 'component', id: ID }, params('labels=service%2C%20%3Dx')).problem).toBe('Labels must be name=value pairs separated by commas: service, =x')
  })
})

describe('log lines', () => {
  it('parses label text, filters lines by message, severity or label, and colours severities', () => {
    expect(parseLabelText(' a=1 ,b = two=2,, c')).toEqual({ labels: { a: '1', b: 'two=2' }, invalid: ['c'] })
    const line = { message: 'Timeout talking to DB', severity: 'error', labels: { app: 'web' } }
    expect(lineMatches(line, 'timeout')).toBe(true)
    expect(lineMatches(line, 'ERROR')).toBe(true)
    expect(lineMatches(line, 'app=web')).toBe(true)
    expect(lineMatches(line, 'api')).toBe(false)
    expect(lineMatches(line, '  ')).toBe(true)
    expect([severityVariant('FATAL'), severityVariant('warning'), severityVariant('info'), severityVariant('')]).toEqual(['danger', 'warning', 'secondary', 'outline'])
  })
})
