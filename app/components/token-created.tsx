import { Fragment, useId, useState } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { Alert, AlertDescription } from '#app/components/ui/alert.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Copy, Eye, EyeOff, ShieldAlert } from '#app/components/ui/icons.tsx'
import { cn } from '#app/lib/cn.ts'
import { mcpSetups } from '#app/lib/token-scopes.ts'
import { Toast } from './toast.tsx'

/** Copies text; the outcome is reported with the spec's clipboard messages. */
export function useCopy(): { copy: (text: string, success?: string) => Promise<void>; message: { text: string; tone: 'success' | 'error' } | null } {
  const [message, setMessage] = useState<{ text: string; tone: 'success' | 'error' } | null>(null)
  return {
    message,
    async copy(text, success = 'Copied to clipboard') {
      if (!navigator.clipboard) {
        setMessage({ text: 'Clipboard not available', tone: 'error' })
        return
      }
      try {
        await navigator.clipboard.writeText(text)
        setMessage({ text: success, tone: 'success' })
      } catch {
        setMessage({ text: 'Failed to copy to clipboard', tone: 'error' })
      }
    },
  }
}

export function maskToken(token: string): string {
  return '•'.repeat(Math.min(token.length, 32))
}

/*
 * Reveal and tabs are plain form controls styled by CSS (`:checked`, `:has`), so they work the
 * same before hydration and with JavaScript off; JavaScript adds only the copy buttons. The
 * masked and the real text are both in the page and CSS shows one: copying always takes the
 * real token, whatever is on screen.
 */
const SHOWN_WHEN_REVEALED = 'hidden group-has-[.token-reveal-toggle:checked]/token:inline'
const SHOWN_WHEN_MASKED = 'group-has-[.token-reveal-toggle:checked]/token:hidden'

/**
 * The one time a token is shown (spec 002 §2, §4): a security notice, the name, the token masked
 * until revealed with copy, and the MCP client setups as tabs, each masked the same way.
 */
export function TokenCreated({ name, token, backendUrl }: { name: string; token: string; backendUrl: string }) {
  const hydrated = useHydrated()
  const revealId = useId()
  const { copy, message } = useCopy()
  const setups = mcpSetups(backendUrl, token)
  const maskedSetups = mcpSetups(backendUrl, maskToken(token))
  return (
    <div className="group/token flex flex-col gap-4" data-testid="token-created">
      <Alert variant="warning">
        <ShieldAlert aria-hidden="true" />
        <AlertDescription>Copy this token now. For your security it will not be shown again.</AlertDescription>
      </Alert>
      <p className="text-sm">
        Token <strong data-testid="token-name">{name}</strong>
      </p>
      <div className="flex items-center gap-2">
        <code className="min-w-0 flex-1 break-all rounded-md border bg-muted/40 px-2 py-1 text-sm">
          <span className={SHOWN_WHEN_MASKED} data-testid="token-masked">
            {maskToken(token)}
          </span>
          <span className={cn('select-all', SHOWN_WHEN_REVEALED)} data-testid="token-value">
            {token}
          </span>
        </code>
        <input type="checkbox" id={revealId} className="token-reveal-toggle peer sr-only" data-testid="token-reveal" aria-label="Reveal token" />
        <label
          htmlFor={revealId}
          title="Reveal or hide the token"
          data-testid="token-reveal-button"
          className={cn(buttonVariants({ variant: 'outline', size: 'icon' }), 'cursor-pointer peer-focus-visible:ring-2 peer-focus-visible:ring-ring')}
        >
          <Eye aria-hidden="true" className={SHOWN_WHEN_MASKED} />
          <EyeOff aria-hidden="true" className={SHOWN_WHEN_REVEALED} />
        </label>
        {hydrated ? (
          <button type="button" className={buttonVariants({ variant: 'outline', size: 'icon' })} aria-label="Copy token" data-testid="token-copy" onClick={() => void copy(token, 'Token copied to clipboard')}>
            <Copy aria-hidden="true" />
          </button>
        ) : null}
      </div>
      <div className="flex flex-col gap-2 text-sm">
        <p>
          Use it as <code>Authorization: Bearer &lt;token&gt;</code>, or with basic auth as user <code>token</code> and the token as password.
        </p>
        <McpSetupTabs setups={setups} maskedSetups={maskedSetups} onCopy={hydrated ? (code) => void copy(code) : undefined} />
      </div>
      <Toast message={message?.text} tone={message?.tone} />
    </div>
  )
}

type Setup = ReturnType<typeof mcpSetups>[number]

/**
 * Client setup tabs: one radio per client (arrow keys move between them natively), its label
 * styled as the tab, its panel shown while it is checked. Each panel is `order-last` and full
 * width, so the labels form the tab row and the open panel sits below them.
 */
function McpSetupTabs({ setups, maskedSetups, onCopy }: { setups: Setup[]; maskedSetups: Setup[]; onCopy?: (code: string) => void }) {
  const groupId = useId()
  return (
    <div className="flex flex-col gap-1" data-testid="mcp-setup">
      <p className="font-medium" id={`${groupId}-title`}>
        MCP client setup
      </p>
      <div role="group" aria-labelledby={`${groupId}-title`} className="flex flex-wrap items-center gap-1" data-testid="mcp-tabs">
        {setups.map((setup, index) => {
          const inputId = `${groupId}-${setup.id}`
          const masked = maskedSetups[index]?.code ?? ''
          return (
            <Fragment key={setup.id}>
              <input type="radio" name={`${groupId}-client`} id={inputId} value={setup.id} defaultChecked={index === 0} className="sr-only" data-testid={`mcp-tab-${setup.id}`} />
              <label
                htmlFor={inputId}
                className="cursor-pointer rounded-md border px-2 py-1 text-xs text-muted-foreground hover:text-foreground [input:checked+&]:bg-primary [input:checked+&]:text-primary-foreground [input:focus-visible+&]:ring-2 [input:focus-visible+&]:ring-ring"
              >
                {setup.label}
              </label>
              <div className="order-last hidden w-full flex-col gap-1 pt-2 [input:checked+label+&]:flex" data-testid={`mcp-panel-${setup.id}`}>
                <pre className="max-h-64 overflow-auto whitespace-pre-wrap break-all rounded bg-muted/40 p-2 text-xs">
                  <span className={SHOWN_WHEN_MASKED} data-testid="mcp-code-masked">
                    {masked}
                  </span>
                  <span className={SHOWN_WHEN_REVEALED} data-testid="mcp-code">
                    {setup.code}
                  </span>
                </pre>
                {onCopy ? (
                  <button type="button" className={cn(buttonVariants({ variant: 'outline', size: 'sm' }), 'self-end')} onClick={() => onCopy(setup.code)} data-testid="mcp-copy">
                    <Copy aria-hidden="true" />
                    Copy {setup.label} setup
                  </button>
                ) : null}
              </div>
            </Fragment>
          )
        })}
      </div>
    </div>
  )
}
