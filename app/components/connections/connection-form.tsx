import { getFormProps, type SubmissionResult } from '@conform-to/react'
import { Form, Link } from '@remix-run/react'
import { useMemo } from 'react'
import { ConnectionFieldInput, type FieldsByName } from '#app/components/connections/connection-field-input.tsx'
import { CONNECTION_FAMILY_ICONS, CONNECTION_FAMILY_LABELS } from '#app/components/connections/connection-display.ts'
import { InlineError } from '#app/components/inline-error.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Icon } from '#app/components/ui/icons.tsx'
import { formShape, useSchemaForm } from '#app/components/use-schema-form.ts'
import { cn } from '#app/lib/cn.ts'
import {
  COMMON_CONNECTION_FIELDS,
  CONNECTION_FAMILIES,
  type connectionFormConstraint,
  type ConnectionTypeDefinition,
} from '#contract/connections/connection-types.ts'

const CARD_CLASS = 'flex h-full items-center gap-2 rounded-md border bg-card p-3 text-sm font-medium shadow-xs hover:border-ring hover:bg-accent'

/** The first step of a new connection (spec 001 §3): every visible type, grouped by family. */
export function ConnectionTypeGrid({ baseHref, types }: { baseHref: string; types: readonly Pick<ConnectionTypeDefinition, 'type' | 'displayName' | 'family'>[] }) {
  return (
    <section className="flex flex-col gap-5" data-testid="connection-type-grid" aria-labelledby="connection-type-grid-title">
      <h2 id="connection-type-grid-title" className="text-sm font-semibold">
        Choose a connection type
      </h2>
      {CONNECTION_FAMILIES.map((family) => {
        const members = types.filter((definition) => definition.family === family)
        if (members.length === 0) return null
        return (
          <div key={family} className="flex flex-col gap-2" data-testid={`connection-family-${family}`}>
            <h3 className="text-xs font-semibold uppercase tracking-wide text-muted-foreground">{CONNECTION_FAMILY_LABELS[family]}</h3>
            <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4 xl:grid-cols-6">
              {members.map((definition) => (
                <li key={definition.type}>
                  <Link to={`${baseHref}?type=${definition.type}`} className={CARD_CLASS} data-testid={`connection-type-${definition.type}`}>
                    <Icon name={CONNECTION_FAMILY_ICONS[family]} aria-hidden="true" className="size-4 shrink-0 text-muted-foreground" />
                    {definition.displayName}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        )
      })}
    </section>
  )
}

export type ConnectionFormProps = {
  definition: ConnectionTypeDefinition
  /** `connectionFormConstraint(definition)`, computed by the loader so the page does not carry it. */
  constraint: ReturnType<typeof connectionFormConstraint>
  /** The form's starting values (`connectionFormDefaults`, secrets masked when editing). */
  defaultValue: Record<string, unknown>
  lastResult: SubmissionResult<string[]> | null | undefined
  /** The intent the submit button posts: `create` on the new page, `save` on an existing one. */
  intent: 'create' | 'save'
  busy: boolean
  cancelHref: string
  disabled?: boolean
}

/**
 * A type's form: Name and Namespace, then the type's own fields in the spec's order. The browser
 * refuses empty required text fields (native constraints from the contract, decision 016); the
 * server checks every answer with the type's schema and shows its messages inline.
 */
export function ConnectionForm({ definition, constraint, defaultValue, lastResult, intent, busy, cancelHref, disabled = false }: ConnectionFormProps) {
  const shape = useMemo(() => formShape(constraint), [constraint])
  const [form, fields] = useSchemaForm(shape, { id: `connection-${definition.type}`, lastResult, defaultValue })
  const metadata = fields as unknown as FieldsByName
  return (
    <Form method="post" {...getFormProps(form)} className="group/form flex flex-col gap-4" data-testid="connection-form" data-type={definition.type}>
      <input type="hidden" name="connectionType" value={definition.type} />
      <InlineError message={form.errors?.join(' ')} />
      <div className="grid gap-4 sm:grid-cols-2">
        {COMMON_CONNECTION_FIELDS.map((field) => (
          <ConnectionFieldInput key={field.name} field={field} fields={metadata} />
        ))}
      </div>
      {definition.fields.length > 0 ? (
        <fieldset className="grid gap-4 rounded-md border p-4 sm:grid-cols-2" disabled={disabled}>
          <legend className="px-1 text-sm font-semibold">{definition.displayName}</legend>
          {definition.fields.map((field) => (
            <ConnectionFieldInput key={field.name} field={field} fields={metadata} />
          ))}
        </fieldset>
      ) : (
        <p className="text-sm text-muted-foreground">This type has no settings of its own.</p>
      )}
      {definition.isNotification ? (
        <p className="text-xs text-muted-foreground">The notification URL is built from these answers when you save; Config Map and Secret sources stay in it as placeholders.</p>
      ) : null}
      <div className="flex items-center gap-2">
        <button type="submit" name="intent" value={intent} className={cn(buttonVariants())} disabled={busy || disabled} data-testid="connection-save">
          {busy ? 'Saving…' : intent === 'create' ? 'Create' : 'Save'}
        </button>
        <Link to={cancelHref} className={buttonVariants({ variant: 'ghost' })} data-testid="connection-cancel">
          Cancel
        </Link>
      </div>
    </Form>
  )
}
