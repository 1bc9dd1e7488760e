import type { ReactNode } from 'react'
import { Label } from '#app/components/ui/label.tsx'
import { YamlEditor } from './yaml-editor.tsx'

/** The YAML line a refused spec points at, and every problem the API listed ('; '-separated). */
export type SpecErrorDetail = { line?: number | null; details?: string | null }

type SpecFieldMetadata = { id: string; name: string; initialValue?: unknown; required?: boolean; errors?: string[]; errorId: string }

/**
 * A form's Spec field: the label, a line of help, the YAML editor and, after a refused save, the
 * message right under it (with the line marked in the gutter and every problem listed). The
 * resource editor and the topology form both write specs this way.
 */
export function SpecField({
  field,
  value,
  editorLabel,
  readOnly,
  specDetail,
  testId,
  help,
}: {
  field: SpecFieldMetadata
  /** What the editor shows when the form has no value of its own yet. */
  value: string
  editorLabel: string
  readOnly: boolean
  specDetail?: SpecErrorDetail | null
  testId: string
  help: ReactNode
}) {
  const specError = field.errors?.join(' ')
  return (
    <div className="flex flex-col gap-1.5">
      <Label htmlFor={field.id}>Spec</Label>
      <p className="text-xs text-muted-foreground">{help}</p>
      <YamlEditor
        id={field.id}
        name={field.name}
        label={editorLabel}
        defaultValue={typeof field.initialValue === 'string' ? field.initialValue : value}
        readOnly={readOnly}
        required={field.required}
        errorLine={specError ? (specDetail?.line ?? undefined) : undefined}
        errorId={specError ? field.errorId : undefined}
        testId={testId}
      />
      {specError ? (
        <div id={field.errorId} role="alert" className="flex flex-col gap-1 rounded-md border border-danger/40 bg-danger-muted px-3 py-2 text-sm text-danger" data-testid="spec-error">
          <span>{specError}</span>
          {specDetail?.details ? (
            <ul className="list-disc pl-5 text-xs" data-testid="spec-error-details">
              {specDetail.details.split('; ').map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  )
}
