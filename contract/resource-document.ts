import { z } from 'zod'

/**
 * What every Kubernetes-style resource of the contract shares (Canary, Topology, ScrapeConfig,
 * Playbook): the document's envelope, and its problems as field paths (`spec.http[0].url`).
 */

export type ValidationIssue = { path: string; message: string }

export function formatPath(path: readonly (string | number)[]): string {
  let text = ''
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`
    else text += text === '' ? part : `.${part}`
  }
  return text
}

/** Bad YAML or a bad spec: every problem with its field path, nothing stored. */
export class ResourceValidationError extends Error {
  readonly status = 400
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; '))
  }
}

/** zod's issues as field paths under `prefix`, each problem once (a union reports some twice). */
export function zodIssues(error: z.ZodError, prefix: (string | number)[]): ValidationIssue[] {
  const seen = new Set<string>()
  const issues: ValidationIssue[] = []
  for (const issue of error.issues) {
    const entry = { path: formatPath([...prefix, ...issue.path]), message: issue.message }
    const key = `${entry.path}\0${entry.message}`
    if (seen.has(key)) continue
    seen.add(key)
    issues.push(entry)
  }
  return issues
}

/** `{apiVersion, kind, metadata, spec}` with the messages the CLI and the editors show. */
export function resourceDocumentSchema<Metadata extends z.ZodTypeAny, Spec extends z.ZodTypeAny>(apiVersion: string, kind: string, metadata: Metadata, spec: Spec) {
  return z
    .object({
      apiVersion: z.literal(apiVersion, { errorMap: () => ({ message: `must be ${apiVersion}` }) }),
      kind: z.literal(kind, { errorMap: () => ({ message: `must be ${kind}` }) }),
      metadata,
      spec,
    })
    .passthrough()
}
