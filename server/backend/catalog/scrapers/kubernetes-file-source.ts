import type { ScrapedDocument, ScraperSource } from './scraper-source.ts'
import { PartialScrapeError } from './file-source.ts'
import { matchFiles, parseFileDocuments, readFiles, refuseUntrustedFileRead } from './scraped-files.ts'

type KubernetesObject = {
  kind?: unknown
  metadata?: { uid?: unknown; name?: unknown; namespace?: unknown; labels?: unknown; creationTimestamp?: unknown }
}

function asText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** What a Kubernetes object says about itself, for the fields the scraper entry leaves unset. */
export function kubernetesDefaults(object: KubernetesObject): ScrapedDocument['defaults'] {
  const kind = asText(object.kind)
  const meta = object.metadata ?? {}
  const name = asText(meta.name)
  const namespace = asText(meta.namespace)
  const labels: Record<string, string> = {}
  if (meta.labels && typeof meta.labels === 'object') {
    for (const [key, value] of Object.entries(meta.labels)) if (typeof value === 'string') labels[key] = value
  }
  if (namespace) labels.namespace = namespace
  return {
    // Objects written by hand have no uid; kind, namespace and name identify them as kubectl does.
    id: asText(meta.uid) ?? (kind && name ? `${kind}/${namespace ?? ''}/${name}` : undefined),
    type: kind ? `Kubernetes::${kind}` : undefined,
    class: kind,
    name,
    labels,
    createdAt: asText(meta.creationTimestamp),
  }
}

/**
 * `kubernetesFile`: Kubernetes objects kept in files (manifests, `kubectl get -o yaml` output).
 * Each object — every document of a file, every element of a `kind: List` — is one config whose
 * id, type, class, name, labels and namespace come from its metadata unless the entry sets them.
 */
export const kubernetesFileSource: ScraperSource = {
  kind: 'kubernetesFile',
  async fetch(entry, context) {
    await refuseUntrustedFileRead('kubernetesFile', context)
    const files = await matchFiles(entry, context.signal)
    const errors: string[] = []
    const documents: ScrapedDocument[] = []
    for (const file of await readFiles(files, context.signal, errors)) {
      let docs: unknown[]
      try {
        docs = parseFileDocuments(file)
      } catch (error) {
        errors.push(`${file.file}: ${(error as Error).message}`)
        continue
      }
      const objects = docs.flatMap((doc) => {
        const list = doc as { kind?: unknown; items?: unknown }
        return list && typeof list === 'object' && typeof list.kind === 'string' && list.kind.endsWith('List') && Array.isArray(list.items) ? list.items : [doc]
      })
      objects.forEach((object, index) => {
        if (!object || typeof object !== 'object' || Array.isArray(object) || !asText((object as KubernetesObject).kind)) {
          errors.push(`${file.file}${objects.length > 1 ? ` [${index}]` : ''}: not a Kubernetes object (no kind)`)
          return
        }
        documents.push({ config: object, source: objects.length > 1 ? `${file.file}#${index}` : file.file, defaults: kubernetesDefaults(object as KubernetesObject) })
      })
    }
    if (errors.length > 0) throw Object.assign(new PartialScrapeError(errors), { documents })
    return documents
  },
}
