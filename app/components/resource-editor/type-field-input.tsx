import type { FieldMetadata } from '@conform-to/react'
import { ErrorList } from '#app/components/forms.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { cn } from '#app/lib/cn.ts'
import type { CheckField } from '#app/lib/canary-check-fields.ts'

/**
 * One field of a type form (a health check type, a scraper type): its label, input, help and
 * errors from conform's metadata. Shared by the check and scraper type pickers; `testIdPrefix`
 * names the inputs for each (`check-field-url`, `scraper-field-query`).
 */

/** A field's conform metadata by its name; a dotted name (`test.expr`) is a field inside a fieldset. */
export function fieldByName(fields: Record<string, FieldMetadata<unknown>>, name: string): FieldMetadata<unknown> {
  const [head, ...rest] = name.split('.')
  let field = fields[head!]!
  for (const part of rest) field = ((field as FieldMetadata<Record<string, unknown>>).getFieldset() as Record<string, FieldMetadata<unknown>>)[part]!
  return field
}

export function FieldInput({ field, meta, testIdPrefix = 'check-field' }: { field: CheckField; meta: FieldMetadata<unknown>; testIdPrefix?: string }) {
  const error = meta.errors?.join(' ')
  const helpId = `${meta.id}-help`
  const describedBy = [error ? meta.errorId : null, field.help ? helpId : null].filter(Boolean).join(' ') || undefined
  const common = {
    id: meta.id,
    name: meta.name,
    defaultValue: typeof meta.initialValue === 'string' ? meta.initialValue : '',
    required: meta.required || undefined,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy,
    'data-testid': `${testIdPrefix}-${field.name}`,
  }
  return (
    <div className={cn('flex flex-col gap-1.5', field.kind === 'textarea' && 'sm:col-span-2')}>
      <Label htmlFor={meta.id}>
        {field.label}
        {field.required ? <span className="text-danger"> *</span> : null}
      </Label>
      {field.kind === 'textarea' ? (
        <textarea
          {...common}
          rows={4}
          placeholder={field.placeholder}
          className="min-h-20 rounded-md border border-input bg-card px-3 py-2 font-mono text-sm shadow-xs focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring aria-[invalid=true]:border-danger"
        />
      ) : field.kind === 'select' ? (
        <select {...common} className="h-9 rounded-md border border-input bg-card px-2 text-sm shadow-xs focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring aria-[invalid=true]:border-danger">
          <option value="">Default</option>
          {field.options?.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      ) : (
        <Input {...common} inputMode={field.kind === 'number' ? 'numeric' : undefined} placeholder={field.placeholder} />
      )}
      {field.help ? (
        <p id={helpId} className="text-xs text-muted-foreground">
          {field.help}
        </p>
      ) : null}
      <ErrorList id={meta.errorId} errors={meta.errors} />
    </div>
  )
}
