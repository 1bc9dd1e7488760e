import { Link, useNavigation, useRouteLoaderData } from '@remix-run/react'
import { CreateTokenForm } from '#app/components/access/create-token-form.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { getMcpEndpointUrl, MCP_TOKEN_DEFAULT_SCOPE } from '#app/lib/mcp-clients.ts'
import { MCP_TOOL_NAMES } from '#contract/mcp/mcp-api.ts'
import { useMcpSetupHref } from './mcp-setup-link.ts'

/** What the console layout's loader tells the dialog (app/routes/_console.tsx). */
type McpSetupLayoutData = { publicOrigin?: string; canCreateTokens?: boolean }

const CLIENT_NAMES = 'Claude Desktop, Claude Code, VS Code Copilot, Cline, Continue.dev or Zed'

/**
 * Setup MCP from the user menu (spec 002 §2): what the endpoint is and how an assistant connects,
 * then the create-token form with the scopes an assistant needs ticked. The form posts to the
 * tokens page's action, whose answer shows the token once with every client's setup. The server
 * renders it from `?mcp=open`, so it works without JavaScript; with it, Escape closes it.
 */
export function McpSetupDialog() {
  const closeTo = useMcpSetupHref(false)
  const layout = useRouteLoaderData<McpSetupLayoutData>('routes/_console')
  const navigation = useNavigation()
  const endpoint = layout?.publicOrigin ? getMcpEndpointUrl(layout.publicOrigin) : null
  const creating = navigation.state === 'submitting' && navigation.formAction?.startsWith('/settings/tokens') === true && navigation.formData?.get('intent') === 'create'
  return (
    <Modal title="Setup MCP" closeTo={closeTo} size="small" expandable={false} testId="mcp-setup-dialog">
      <div className="flex flex-col gap-4 text-sm">
        <p>
          Lookout is a Model Context Protocol server: an AI assistant such as {CLIENT_NAMES} can search the catalog, read checks, incidents and their evidence, and
          list and run playbooks, as you and never beyond what you may see.
        </p>
        <ol className="flex flex-col gap-4">
          <li className="flex flex-col gap-1" data-testid="mcp-setup-step-endpoint">
            <span className="font-medium">1. The endpoint</span>
            {endpoint ? (
              <code className="self-start break-all rounded-md border bg-muted/40 px-2 py-1 text-xs" data-testid="mcp-setup-endpoint">
                {endpoint}
              </code>
            ) : null}
            <span className="text-muted-foreground">
              Streamable HTTP (JSON-RPC 2.0 over POST). Every call carries an access token as <code>Authorization: Bearer &lt;token&gt;</code>.
            </span>
            <span className="text-muted-foreground">
              Tools:{' '}
              {MCP_TOOL_NAMES.map((tool, index) => (
                <span key={tool}>
                  {index > 0 ? ', ' : null}
                  <code className="text-xs">{tool}</code>
                </span>
              ))}
              ; views are offered as resources.
            </span>
          </li>
          <li className="flex flex-col gap-2" data-testid="mcp-setup-step-token">
            <span className="font-medium">2. Create an access token for the assistant</span>
            {layout?.canCreateTokens ? (
              <>
                <span className="text-muted-foreground">
                  The token acts with your roles, limited to the scopes ticked below: <code>mcp</code> to connect, and what the assistant may read. Tick{' '}
                  <code>playbook:run</code> to let it run playbooks.
                </span>
                <CreateTokenForm lastResult={undefined} creating={creating} defaultScope={[...MCP_TOKEN_DEFAULT_SCOPE]} />
              </>
            ) : (
              <span className="text-muted-foreground" data-testid="mcp-setup-no-tokens">
                Creating access tokens is not open to your account; ask an administrator for a token with the <code>mcp</code> scope.
              </span>
            )}
          </li>
          <li className="flex flex-col gap-1" data-testid="mcp-setup-step-client">
            <span className="font-medium">3. Add it to your assistant</span>
            <span className="text-muted-foreground">
              The token is shown once, right after it is created, with the setup for {CLIENT_NAMES} and a first call over plain HTTP, each with this endpoint and the token
              filled in.
            </span>
          </li>
        </ol>
      </div>
      <div className="mt-4 flex justify-end">
        <Link to={closeTo} preventScrollReset className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="mcp-setup-close">
          Close
        </Link>
      </div>
    </Modal>
  )
}
