import { Link, useRouteLoaderData } from '@remix-run/react'
import { Download } from '#app/components/ui/icons.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { useKubeconfigHref } from './kubeconfig-link.ts'

export const KUBECONFIG_DOCS_URL = 'https://docs.flanksource.com/'

/** The file the API names `<tenant>-kubeconfig.yaml`: the host without port or hosting domain. */
export function kubeconfigFileName(hostname: string): string {
  const tenant = hostname.replace(/:\d+$/, '').replace(/\.flanksource\.com$/, '') || 'lookout'
  return `${tenant}-kubeconfig.yaml`
}

/** What the console layout's loader tells the dialog: the public origin (app/lib/public-origin.server.ts). */
type KubeconfigLayoutData = { publicOrigin?: string }

/**
 * The file name the download will carry, from the origin the server saw (the host the API names
 * the attachment after), so the server-rendered example is already the real one.
 */
function useKubeconfigFileName(): string {
  const layout = useRouteLoaderData<KubeconfigLayoutData>('routes/_console')
  return kubeconfigFileName(layout?.publicOrigin ? new URL(layout.publicOrigin).host : '')
}

/**
 * Spec 002 §2: download, apply with kubectl, read the docs. The server renders it from the URL
 * parameter. The API keeps one kubeconfig token per user, so the dialog says before the click
 * that a download replaces the previous one.
 */
export function KubeconfigDialog() {
  const closeTo = useKubeconfigHref(false)
  const fileName = useKubeconfigFileName()
  return (
    <Modal title="Download kubeconfig" closeTo={closeTo} size="very-small" expandable={false} testId="kubeconfig-dialog">
      <ol className="flex flex-col gap-4 text-sm">
        <li className="flex flex-col gap-2" data-testid="kubeconfig-step-1">
          <span className="font-medium">1. Download the kubeconfig file</span>
          {/* A new tab: the API answers with the file as an attachment, with a new token in it. */}
          <a href="/api/kubeconfig" target="_blank" rel="noreferrer" className={buttonVariants({ size: 'sm', className: 'self-start' })} data-testid="kubeconfig-download">
            <Download aria-hidden="true" />
            Download
          </a>
          <span className="text-muted-foreground" data-testid="kubeconfig-token-notice">
            Each download creates a new access token for you and revokes the one from your previous download.
          </span>
        </li>
        <li className="flex flex-col gap-2" data-testid="kubeconfig-step-2">
          <span className="font-medium">2. Apply the file</span>
          <span className="text-muted-foreground">Use it with kubectl, for example to list the canaries:</span>
          <pre className="whitespace-pre-wrap break-all rounded-md border bg-muted p-2 font-mono text-xs" data-testid="kubeconfig-example">
            kubectl --kubeconfig ./{fileName} get canaries
          </pre>
        </li>
        <li className="flex flex-col gap-2" data-testid="kubeconfig-step-3">
          <span className="font-medium">3. Learn more</span>
          <a href={KUBECONFIG_DOCS_URL} target="_blank" rel="noreferrer" className="text-primary underline-offset-4 hover:underline" data-testid="kubeconfig-docs">
            Read the kubeconfig documentation
          </a>
        </li>
      </ol>
      <div className="mt-4 flex justify-end">
        <Link to={closeTo} preventScrollReset className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="kubeconfig-close">
          Close
        </Link>
      </div>
    </Modal>
  )
}
