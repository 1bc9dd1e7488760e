import { failResult, invalidResult, newResult, TYPES_WITHOUT_EXPRESSIONS, type CheckResult, type CheckRunContext, type CheckRunner } from './check-result.ts'
import { parseDurationMs } from '#contract/canary/duration.ts'
import { asBoolean, asText, evaluateTemplateObject, isTemplateSet, type TemplateObjectInput } from './expressions.ts'
import { serverRedactor } from '#server/ops/secret-redaction.ts'

/**
 * One execution of one check, as the reference evaluates it (resource-specs §1.4): retries
 * around the type's runner, a hard per-check timeout, then transform → display → test.
 */

type RetryPolicy = { delay?: unknown; maxRetries?: number; timeout?: unknown; interval?: unknown; disabled?: boolean }

export function mergeRetries(canary: RetryPolicy | undefined, check: RetryPolicy | undefined): RetryPolicy {
  return { ...(canary ?? {}), ...Object.fromEntries(Object.entries(check ?? {}).filter(([, v]) => v !== undefined)) }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve()
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => { clearTimeout(timer); resolve() }, { once: true })
  })

/** The runner's outcome, or a failed result once the deadline passes even if the runner ignores its signal. */
async function runWithDeadline(runner: CheckRunner, spec: Record<string, unknown>, context: CheckRunContext, start: Date): Promise<CheckResult[]> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<CheckResult[]>((resolve) => {
    timer = setTimeout(() => {
      const result = failResult(newResult(start), `timed out after ${Math.round(context.timeoutMs / 100) / 10}s`)
      result.duration = Date.now() - start.getTime()
      resolve([result])
    }, context.timeoutMs + 50)
  })
  try {
    return await Promise.race([
      runner(spec, context).catch((error: unknown) => {
        const result = newResult(start)
        result.duration = Date.now() - start.getTime()
        return [context.signal.aborted ? failResult(result, `timed out after ${Math.round(context.timeoutMs / 100) / 10}s`) : failResult(result, (error as Error)?.message ?? String(error))]
      }),
      deadline,
    ])
  } finally {
    clearTimeout(timer)
  }
}

export async function runCheck(
  runner: CheckRunner,
  spec: Record<string, unknown>,
  context: Omit<CheckRunContext, 'signal'>,
  options: { canaryRetries?: RetryPolicy; stopSignal?: AbortSignal } = {},
): Promise<CheckResult[]> {
  const retries = mergeRetries(options.canaryRetries, spec.retries as RetryPolicy | undefined)
  const maxRetries = retries.disabled ? 0 : Math.max(0, Number(retries.maxRetries ?? 0))
  const budgetMs = retries.disabled ? 0 : parseDurationMs(retries.timeout ?? 0) ?? 0
  const retriesOn = maxRetries > 0 || budgetMs > 0
  const intervalMs = parseDurationMs(retries.interval ?? '1s') ?? 1_000
  const firstAttemptAt = Date.now()
  const stop = options.stopSignal ?? new AbortController().signal

  if (retriesOn) await sleep(parseDurationMs(retries.delay ?? 0) ?? 0, stop)
  let attempt = 0
  for (;;) {
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), context.timeoutMs)
    const onStop = () => controller.abort()
    stop.addEventListener('abort', onStop, { once: true })
    let results: CheckResult[]
    try {
      results = await runWithDeadline(runner, spec, { ...context, signal: controller.signal }, new Date())
    } finally {
      clearTimeout(timer)
      stop.removeEventListener('abort', onStop)
    }
    results = results.flatMap((result) => postProcess(result, spec, context))
    const failed = results.some((result) => !result.pass)
    const invalid = results.some((result) => result.invalid)
    attempt += 1
    const withinBudget = budgetMs > 0 ? Date.now() - firstAttemptAt + intervalMs < budgetMs : true
    const attemptsLeft = maxRetries > 0 ? attempt <= maxRetries : budgetMs > 0
    if (!retriesOn || !failed || invalid || !withinBudget || !attemptsLeft || stop.aborted) return results.map(redactResult)
    await sleep(intervalMs, stop)
  }
}

/**
 * Output leaves the run with the server's secrets scrubbed (secret-redaction.ts): whatever a
 * script printed or an error quoted, the stored status, job history and Run Now answer carry
 * none of them. Expressions above saw the real output, so tests still judge it.
 */
export function redactResult(result: CheckResult): CheckResult {
  const redactor = serverRedactor()
  if (redactor.secretCount === 0) return result
  return {
    ...result,
    message: redactor.redactText(result.message),
    errors: result.errors.map((error) => redactor.redactText(error)),
    data: redactor.redact(result.data),
    detail: redactor.redact(result.detail),
    ...(result.transformed ? { transformed: redactor.redact(result.transformed) } : {}),
  }
}

function variablesOf(result: CheckResult, context: Omit<CheckRunContext, 'signal'>): Record<string, unknown> {
  return {
    errorType: '',
    ...result.data,
    canary: { name: context.canary.name, namespace: context.canary.namespace, labels: context.canary.labels, id: context.canary.id },
    check: { ...context.check },
    pass: result.pass,
    message: result.message,
    error: result.errors.join(', '),
    duration: result.duration,
  }
}

/** transform → display → test on one runner result (a transform may turn it into several). */
export function postProcess(result: CheckResult, spec: Record<string, unknown>, context: Omit<CheckRunContext, 'signal'>): CheckResult[] {
  const type = context.check.type
  if (TYPES_WITHOUT_EXPRESSIONS.has(type)) return [result]
  let results = [result]
  const transform = spec.transform as TemplateObjectInput | undefined
  if (isTemplateSet(transform)) results = applyTransform(result, transform, spec, context)
  const display = spec.display as TemplateObjectInput | undefined
  const test = spec.test as TemplateObjectInput | undefined
  for (const current of results) {
    if (current.invalid) continue
    if (isTemplateSet(display)) {
      try {
        current.message = asText(evaluateTemplateObject(display, variablesOf(current, context)))
      } catch (error) {
        failResult(current, `error rendering display: ${(error as Error).message}`)
      }
    }
    if (isTemplateSet(test) && !current.transformed) {
      let outcome: boolean | null = null
      try {
        outcome = asBoolean(evaluateTemplateObject(test, variablesOf(current, context)))
      } catch (error) {
        failResult(current, `error evaluating test: ${(error as Error).message}`)
        continue
      }
      if (outcome === null) failResult(current, 'test expression did not return a boolean value')
      else if (!outcome && current.pass) {
        if (type === 'exec') {
          const out = current.data.results as { stdout?: string; stderr?: string; exitCode?: number } | undefined
          const text = [out?.stderr, out?.stdout].filter(Boolean).join(' ')
          failResult(current, text || `exit code ${out?.exitCode ?? 0}`)
        } else failResult(current, 'test failed')
      }
    }
  }
  return results
}

const IN_PLACE_KEYS = ['pass', 'invalid', 'message', 'description', 'error', 'duration', 'labels', 'data', 'detail'] as const

function applyTransform(result: CheckResult, transform: TemplateObjectInput, spec: Record<string, unknown>, context: Omit<CheckRunContext, 'signal'>): CheckResult[] {
  let output: unknown
  try {
    output = evaluateTemplateObject(transform, variablesOf(result, context))
    if (typeof output === 'string') output = output.trim() === '' ? [] : JSON.parse(output)
  } catch (error) {
    return [invalidResult(result, `error transforming result: ${(error as Error).message}`)]
  }
  const items = Array.isArray(output) ? output : [output]
  if (items.length === 0) {
    return spec.markFailOnEmpty ? [failResult(result, 'transform returned no results')] : [result]
  }
  const objects = items.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null && !Array.isArray(item))
  if (objects.length !== items.length) return [invalidResult(result, 'error transforming result: output must be an object or a list of objects')]
  if (objects.some((item) => 'spec' in item)) {
    return [invalidResult(result, 'error transforming result: canary definitions from a transform are not supported')]
  }
  const first = objects[0]!
  const fansOut = typeof first.name === 'string' && first.name !== '' && first.name !== context.check.name
  if (!fansOut) {
    if (objects.length > 1) return [invalidResult(result, 'error transforming result: several unnamed items')]
    editInPlace(result, first)
    return [result]
  }
  const parent = { ...result, detail: undefined }
  const children = objects.map((item) => {
    const child: CheckResult = { ...result, errors: [...result.errors], data: { ...result.data }, detail: undefined }
    editInPlace(child, item)
    child.transformed = {
      name: String(item.name ?? context.check.name),
      type: typeof item.type === 'string' ? item.type : undefined,
      description: typeof item.description === 'string' ? item.description : undefined,
      icon: typeof item.icon === 'string' ? item.icon : undefined,
      labels: isStringMap(item.labels) ? item.labels : undefined,
    }
    return child
  })
  return [parent, ...children]
}

function isStringMap(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && Object.values(value).every((v) => typeof v === 'string')
}

function editInPlace(result: CheckResult, item: Record<string, unknown>): void {
  for (const key of IN_PLACE_KEYS) {
    if (!(key in item)) continue
    const value = item[key]
    switch (key) {
      case 'pass': result.pass = Boolean(value); break
      case 'invalid': result.invalid = Boolean(value); if (result.invalid) result.pass = false; break
      case 'message': result.message = asText(value); break
      case 'error': result.errors = value ? [asText(value)] : []; break
      case 'duration': if (typeof value === 'number') result.duration = value; break
      case 'data': if (value && typeof value === 'object') result.data = { ...result.data, ...(value as object) }; break
      case 'detail': result.detail = value === '$delete' ? undefined : value; break
      default: break
    }
  }
}
