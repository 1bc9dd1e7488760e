import type { PlaybookParameterSpec } from '#contract/playbook/playbook-vocabulary.ts'
import { ErrorList } from '#app/components/forms.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import type { FieldConstraint } from '#app/lib/form-shape.ts'
import { cn } from '#app/lib/cn.ts'
import { FORMAT_HINTS, listOptions, paramField, propertyNumber, propertyText } from './run-form-model.ts'

export type ParameterChoice = { id: string; name: string; type: string | null }
export type ParameterChoices = Partial<Record<'people' | 'team' | 'component' | 'config' | 'check', ParameterChoice[]>>

/** What the form gives each field: its id, constraints, the value to show and its messages. */
export type ParameterFieldState = {
  id: string
  constraint: FieldConstraint
  value: unknown
  errors: string[] | undefined
}

// Sizes and type scale are left to each control, so no class here competes with one added below.
const CONTROL = 'flex w-full rounded-md border border-input bg-card px-3 shadow-xs focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring aria-[invalid=true]:border-danger'

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value)
}

/**
 * One field per playbook parameter type (resource-specs §2.2): text (multi-line, length and
 * regex), checkbox, list, code, duration, bytes, millicores, secret, and pickers for people, a
 * team, a component, a config or a check, and a JSON selector of configs. Plain form controls named
 * `params.<name>`, so the form posts without JavaScript and the server's schema checks them.
 */
export function ParameterField({ param, state, choices }: { param: PlaybookParameterSpec; state: ParameterFieldState; choices: ParameterChoices }) {
  const type = param.type ?? 'text'
  const name = paramField(param.name)
  const errorId = state.errors?.length ? `${state.id}-error` : undefined
  const descriptionId = param.description || FORMAT_HINTS[type] ? `${state.id}-description` : undefined
  const common = {
    id: state.id,
    name,
    'aria-invalid': errorId ? true : undefined,
    'aria-describedby': [descriptionId, errorId].filter(Boolean).join(' ') || undefined,
    required: state.constraint.required,
    'data-testid': `param-${param.name}`,
  }
  const label = param.label || param.name
  let control: JSX.Element
  switch (type) {
    case 'checkbox':
      control = <input type="checkbox" {...common} value="true" defaultChecked={text(state.value) === 'true' || state.value === 'on'} className="size-4" />
      break
    case 'code':
      control = (
        <textarea
          {...common}
          defaultValue={text(state.value)}
          minLength={state.constraint.minLength}
          maxLength={state.constraint.maxLength}
          rows={Math.min(30, Math.max(6, propertyNumber(param, 'size') ?? 10))}
          spellCheck={false}
          data-language={propertyText(param, 'language')}
          className={cn(CONTROL, 'py-2 font-mono text-xs')}
        />
      )
      break
    case 'list': {
      const options = listOptions(param)
      control = (
        <select {...common} defaultValue={text(state.value)} className={cn(CONTROL, 'h-9 text-sm')}>
          <option value="">Select…</option>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )
      break
    }
    case 'people':
    case 'team':
    case 'component':
    case 'config':
    case 'check': {
      const options = choices[type] ?? []
      control = (
        <select {...common} defaultValue={text(state.value)} className={cn(CONTROL, 'h-9 text-sm')}>
          <option value="">Select…</option>
          {options.map((option) => (
            <option key={option.id} value={option.id}>
              {option.name}
              {option.type ? ` (${option.type})` : ''}
            </option>
          ))}
        </select>
      )
      break
    }
    case 'configs':
      // A selector of configs (JSON), not a pick of one: the run templates it into a query.
      control = <textarea {...common} defaultValue={text(state.value)} rows={3} spellCheck={false} placeholder='{"types": ["Kubernetes::Pod"]}' className={cn(CONTROL, 'py-2 font-mono text-xs')} />
      break
    case 'secret':
      control = <Input {...common} type="password" autoComplete="off" defaultValue={text(state.value)} minLength={state.constraint.minLength} maxLength={state.constraint.maxLength} />
      break
    case 'text':
      control = propertyText(param, 'multiline') === 'true' || param.properties?.multiline === true ? (
        <textarea {...common} defaultValue={text(state.value)} minLength={state.constraint.minLength} maxLength={state.constraint.maxLength} rows={4} className={cn(CONTROL, 'py-2 text-sm')} />
      ) : (
        <Input {...common} defaultValue={text(state.value)} minLength={state.constraint.minLength} maxLength={state.constraint.maxLength} pattern={state.constraint.pattern} />
      )
      break
    default:
      // duration, bytes, millicores: text with a grammar the server checks.
      control = <Input {...common} defaultValue={text(state.value)} pattern={state.constraint.pattern} placeholder={type === 'bytes' ? '512Mi' : type === 'millicores' ? '500m' : type === 'duration' ? '5m' : undefined} />
  }
  const labelElement = (
    <Label htmlFor={state.id}>
      {label}
      {state.constraint.required ? <span className="text-danger"> *</span> : null}
    </Label>
  )
  return (
    <div className="flex flex-col gap-1.5" data-testid="param-field" data-param-type={type}>
      {type === 'checkbox' ? (
        <div className="flex items-center gap-2">
          {control}
          {labelElement}
        </div>
      ) : (
        <>
          {labelElement}
          {control}
        </>
      )}
      {descriptionId ? (
        <p id={descriptionId} className="text-xs text-muted-foreground">
          {param.description || FORMAT_HINTS[type]}
        </p>
      ) : null}
      <ErrorList id={errorId} errors={state.errors} />
    </div>
  )
}
