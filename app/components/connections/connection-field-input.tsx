import { getCollectionProps, getInputProps, getSelectProps, getTextareaProps, type FieldMetadata } from '@conform-to/react'
import type { ReactNode } from 'react'
import { ErrorList } from '#app/components/forms.tsx'
import { fieldByName } from '#app/components/resource-editor/type-field-input.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { cn } from '#app/lib/cn.ts'
import { SECRET_SOURCE_LABELS, SECRET_SOURCES, type ConnectionField } from '#contract/connections/connection-types.ts'

/**
 * One field of a connection type's form (spec 001 §3), from the contract's field description and
 * conform's metadata. Secret fields are a radio group of their sources — Static value, Config Map,
 * Secret — whose inputs show by CSS (`:has(:checked)`), so switching works without JavaScript;
 * the server reads only the chosen source's answers ("switching mode clears the other mode's value").
 */

export type FieldsByName = Record<string, FieldMetadata<unknown>>

const SELECT_CLASS =
  'h-9 rounded-md border border-input bg-card px-2 text-sm shadow-xs focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring aria-[invalid=true]:border-danger'
const TEXTAREA_CLASS =
  'min-h-20 rounded-md border border-input bg-card px-3 py-2 font-mono text-sm shadow-xs focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring aria-[invalid=true]:border-danger'

/**
 * Git's Authentication shows either the username and password or the SSH key: hidden by CSS when
 * the form's select holds the other choice (static class names, so Tailwind generates them).
 */
const SHOWN_WHEN_CLASS: Record<string, string> = {
  Basic: 'group-has-[select[name=authentication]_option[value=SSH]:checked]/form:hidden',
  SSH: 'group-has-[select[name=authentication]_option[value=Basic]:checked]/form:hidden',
}

/** A conform key must not be spread into JSX. */
function withoutKey<T extends { key?: unknown }>(props: T): Omit<T, 'key'> {
  const { key: _key, ...rest } = props
  return rest
}

function FieldLabel({ field, htmlFor }: { field: ConnectionField; htmlFor?: string }) {
  return (
    <Label htmlFor={htmlFor}>
      {field.label}
      {field.required ? (
        <span className="text-danger" aria-hidden="true">
          {' '}
          *
        </span>
      ) : null}
    </Label>
  )
}

function Help({ id, text }: { id: string; text: string | undefined }) {
  return text ? (
    <p id={id} className="text-xs text-muted-foreground">
      {text}
    </p>
  ) : null
}

function Wrapper({ field, wide, children, testId }: { field: ConnectionField; wide?: boolean; children: ReactNode; testId: string }) {
  return (
    <div className={cn('flex flex-col gap-1.5', wide && 'sm:col-span-2', field.shownWhen && SHOWN_WHEN_CLASS[field.shownWhen.equals])} data-testid={testId}>
      {children}
    </div>
  )
}

export function ConnectionFieldInput({ field, fields }: { field: ConnectionField; fields: FieldsByName }) {
  if (field.kind === 'secret') return <SecretFieldInput field={field} fields={fields} />
  const meta = fieldByName(fields, field.name)
  const testId = `connection-field-${field.name}`
  const helpId = `${meta.id}-help`
  const describedBy = [meta.errors?.length ? meta.errorId : null, field.help ? helpId : null].filter(Boolean).join(' ') || undefined
  if (field.kind === 'checkbox') {
    return (
      <Wrapper field={field} testId={`${testId}-wrapper`}>
        <label className="flex items-center gap-2 pt-6 text-sm font-medium">
          <input {...withoutKey(getInputProps(meta, { type: 'checkbox' }))} aria-describedby={describedBy} className="size-4" data-testid={testId} />
          {field.label}
        </label>
        <Help id={helpId} text={field.help} />
        <ErrorList id={meta.errorId} errors={meta.errors} />
      </Wrapper>
    )
  }
  return (
    <Wrapper field={field} testId={`${testId}-wrapper`}>
      <FieldLabel field={field} htmlFor={meta.id} />
      {field.kind === 'select' ? (
        <select {...withoutKey(getSelectProps(meta))} aria-describedby={describedBy} className={SELECT_CLASS} data-testid={testId}>
          {field.options?.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      ) : (
        <Input
          {...withoutKey(getInputProps(meta, { type: field.kind === 'number' ? 'number' : 'text' }))}
          aria-describedby={describedBy}
          data-testid={testId}
        />
      )}
      <Help id={helpId} text={field.help} />
      <ErrorList id={meta.errorId} errors={meta.errors} />
    </Wrapper>
  )
}

/** A secret field: its source as radios, then the static value or the Config Map / Secret name and key. */
function SecretFieldInput({ field, fields }: { field: ConnectionField; fields: FieldsByName }) {
  const source = fieldByName(fields, `${field.name}.source`)
  const value = fieldByName(fields, `${field.name}.value`)
  const refName = fieldByName(fields, `${field.name}.name`)
  const refKey = fieldByName(fields, `${field.name}.key`)
  const testId = `connection-field-${field.name}`
  const initialSource = typeof source.initialValue === 'string' && source.initialValue ? source.initialValue : 'static'
  const radios = getCollectionProps(source, { type: 'radio', options: [...SECRET_SOURCES] })
  const helpId = `${value.id}-help`
  return (
    <fieldset className={cn('group flex flex-col gap-2 rounded-md border p-3 sm:col-span-2', field.shownWhen && SHOWN_WHEN_CLASS[field.shownWhen.equals])} data-testid={testId}>
      <legend className="px-1 text-sm font-medium">
        {field.label}
        {field.required ? (
          <span className="text-danger" aria-hidden="true">
            {' '}
            *
          </span>
        ) : null}
      </legend>
      <div role="radiogroup" aria-label={`${field.label} source`} className="flex flex-wrap gap-4 text-sm">
        {radios.map((radio) => (
          <label key={radio.value} className="flex items-center gap-1.5">
            <input {...withoutKey(radio)} defaultChecked={radio.value === initialSource} className="size-4" data-testid={`${testId}-source-${radio.value}`} />
            {SECRET_SOURCE_LABELS[radio.value as keyof typeof SECRET_SOURCE_LABELS]}
          </label>
        ))}
      </div>
      <div className="hidden flex-col gap-1.5 group-has-[input[type=radio][value=static]:checked]:flex">
        <Label htmlFor={value.id} className="sr-only">
          {field.label}
        </Label>
        {field.multiline ? (
          <textarea {...withoutKey(getTextareaProps(value))} rows={4} aria-describedby={field.help ? helpId : undefined} className={TEXTAREA_CLASS} data-testid={`${testId}-value`} />
        ) : (
          <Input {...withoutKey(getInputProps(value, { type: 'password' }))} autoComplete="new-password" aria-describedby={field.help ? helpId : undefined} data-testid={`${testId}-value`} />
        )}
        <ErrorList id={value.errorId} errors={value.errors} />
      </div>
      <div className="hidden gap-3 group-has-[input[type=radio][value=configmap]:checked]:grid group-has-[input[type=radio][value=secret]:checked]:grid sm:grid-cols-2">
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={refName.id}>Name</Label>
          <Input {...withoutKey(getInputProps(refName, { type: 'text' }))} data-testid={`${testId}-name`} />
          <ErrorList id={refName.errorId} errors={refName.errors} />
        </div>
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={refKey.id}>Key</Label>
          <Input {...withoutKey(getInputProps(refKey, { type: 'text' }))} data-testid={`${testId}-key`} />
          <ErrorList id={refKey.errorId} errors={refKey.errors} />
        </div>
      </div>
      <Help id={helpId} text={field.help} />
      <ErrorList id={source.errorId} errors={[...(source.errors ?? []), ...(fieldByName(fields, field.name).errors ?? [])]} />
    </fieldset>
  )
}
