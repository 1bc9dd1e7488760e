import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Link } from '@remix-run/react'
import type { ReactNode } from 'react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import {
  ACTIONS_BY_RESOURCE_KIND,
  GLOBAL_OBJECTS,
  RESOURCE_COLUMN_OF,
  RESOURCE_KIND_LABELS,
  RESOURCE_KINDS,
  ROLE_SUBJECTS,
} from '#app/lib/permissions-form-shapes.ts'
import { documentTitle, type RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'
import { AREAS, ROLE_MATRIX, ROLES } from '#contract/role-matrix.ts'

/**
 * The help page of the permission dialog (spec 002 §2, "/reference/permissions"): how Lookout
 * decides who may do what. Every statement follows what server/backend/rbac enforces; the lists
 * (objects, actions, roles, areas) are read from the same modules the dialog and the server use,
 * so the page cannot drift from them.
 */
export const handle = { title: 'Permissions reference' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  // Any signed-in user may read how access works; no area guards it.
  await requireAccess(args, {})
  return null
}

/** The permission object each resource kind's rule is about (rbac/conditions.ts). */
const RESOURCE_OBJECT: Record<Exclude<(typeof RESOURCE_KINDS)[number], 'global'>, string> = {
  config: 'catalog',
  component: 'topology',
  canary: 'canaries',
  playbook: 'playbooks',
  connection: 'connection',
}

const SECTIONS = [
  { id: 'model', title: 'The permission model' },
  { id: 'subjects', title: 'Subjects' },
  { id: 'objects', title: 'Objects' },
  { id: 'resources', title: 'Resources' },
  { id: 'actions', title: 'Actions' },
  { id: 'deny', title: 'Deny' },
  { id: 'tags', title: 'Tags' },
  { id: 'agents', title: 'Agents' },
  { id: 'roles', title: 'Roles' },
  { id: 'writing', title: 'Who may write permissions' },
] as const

type SectionId = (typeof SECTIONS)[number]['id']

function Section({ id, children }: { id: SectionId; children: ReactNode }) {
  const title = SECTIONS.find((section) => section.id === id)?.title
  return (
    <section id={id} aria-labelledby={`${id}-title`} className="flex scroll-mt-4 flex-col gap-3" data-testid={`reference-${id}`}>
      <h2 id={`${id}-title`} className="text-base font-semibold">
        {title}
      </h2>
      {children}
    </section>
  )
}

function Code({ children }: { children: ReactNode }) {
  return <code className="rounded bg-muted px-1 py-0.5 font-mono text-xs">{children}</code>
}

function CodeList({ values }: { values: readonly string[] }) {
  return (
    <span className="flex flex-wrap gap-1">
      {values.map((value) => (
        <Code key={value}>{value}</Code>
      ))}
    </span>
  )
}

const TABLE_CLASS = 'w-full border-collapse text-left text-sm'
const CELL_CLASS = 'border-b px-2 py-1.5 align-top'

export default function PermissionsReference() {
  return (
    <article className="flex max-w-4xl flex-col gap-8 p-6 text-sm leading-6" data-testid="permissions-reference">
      <header className="flex flex-col gap-2">
        <h1 className="text-lg font-semibold">How permissions work in Lookout</h1>
        <p className="text-muted-foreground">
          Every request is checked against the roles of whoever makes it and the permissions stored for them. This page explains what a permission says and how the
          server decides. Permissions are managed under <Link to="/settings/permissions" className="underline underline-offset-4">Settings → Permissions</Link>.
        </p>
        <nav aria-label="On this page">
          <ul className="flex flex-wrap gap-x-4 gap-y-1">
            {SECTIONS.map((section) => (
              <li key={section.id}>
                <a href={`#${section.id}`} className="text-muted-foreground underline-offset-4 hover:underline">
                  {section.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>

      <Section id="model">
        <p>
          A permission is one rule: a <strong>subject</strong> may (or, with deny, may not) perform an <strong>action</strong> on an <strong>object</strong>,
          optionally narrowed to one <strong>resource</strong>, to resources with certain <strong>tags</strong>, or to resources of certain <strong>agents</strong>.
        </p>
        <p>
          Roles come first: each role carries grants on the areas of the role table below. Stored permissions add to them or take away from them. A request is
          allowed when at least one grant covers it and no deny does. Everything not granted is refused; the refusal names the object and action that were missing.
        </p>
        <p>
          A permission may carry an expiry (<Code>until</Code>); once it passes, the rule no longer applies. The dialog edits the subject, the resource, the
          action, deny and the description. Tags, agents, expiry and resource selectors are written through the data API (the <Code>permissions</Code> table); the dialog
          keeps a row&apos;s tags, agents and expiry when it saves it, while the resource it saves replaces any selector (a row has one target).
        </p>
      </Section>

      <Section id="subjects">
        <p>Who a permission is for. The dialog offers five kinds; the stored <Code>subject_type</Code> is shown beside each.</p>
        <table className={TABLE_CLASS}>
          <thead>
            <tr>
              <th className={CELL_CLASS}>Kind</th>
              <th className={CELL_CLASS}>subject_type</th>
              <th className={CELL_CLASS}>Who it reaches</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td className={CELL_CLASS}>Person</td>
              <td className={CELL_CLASS}>
                <Code>person</Code>
              </td>
              <td className={CELL_CLASS}>One user, by id, whatever their roles.</td>
            </tr>
            <tr>
              <td className={CELL_CLASS}>Team</td>
              <td className={CELL_CLASS}>
                <Code>team</Code>
              </td>
              <td className={CELL_CLASS}>Every current member of the team; someone who joins later receives it, someone who leaves loses it. Deleted teams give nothing.</td>
            </tr>
            <tr>
              <td className={CELL_CLASS}>Role</td>
              <td className={CELL_CLASS}>
                <Code>group</Code>
              </td>
              <td className={CELL_CLASS}>
                Everyone holding the role, directly or through a role that includes it. Roles offered: <CodeList values={ROLE_SUBJECTS} />
              </td>
            </tr>
            <tr>
              <td className={CELL_CLASS}>Notification</td>
              <td className={CELL_CLASS}>
                <Code>notification</Code>
              </td>
              <td className={CELL_CLASS}>A notification acting as itself. It holds only what is granted to it, nothing from roles.</td>
            </tr>
            <tr>
              <td className={CELL_CLASS}>Playbook</td>
              <td className={CELL_CLASS}>
                <Code>playbook</Code>
              </td>
              <td className={CELL_CLASS}>A playbook acting as itself. It holds only what is granted to it, not what the person who started it holds.</td>
            </tr>
          </tbody>
        </table>
        <p>
          Notification and playbook subjects are for the engines that send notifications and run playbooks: the server evaluates them as subjects of their own.
          This server stores and checks such rules, and weighs them when someone writes permissions, but does not itself run playbooks or send notifications as
          those subjects yet. Access tokens act for the person who owns them; a token&apos;s scopes can only narrow that person&apos;s access, never widen it.
        </p>
      </Section>

      <Section id="objects">
        <p>
          An object names a part of the product. A rule on the Global resource kind names one object; <Code>*</Code> (through the API) names every object. The
          dialog offers these objects:
        </p>
        <CodeList values={GLOBAL_OBJECTS} />
        <p>
          Objects and the areas of the role table are two vocabularies: <Code>catalog</Code> falls in the area <Code>database</Code>, <Code>topology</Code> in{' '}
          <Code>topologies</Code>, <Code>connection</Code> and <Code>connection-detail</Code> in <Code>connections</Code>, <Code>agent</Code> and{' '}
          <Code>agent-push</Code> in <Code>agents</Code>, <Code>logs</Code> in <Code>logging_backends</Code>, <Code>kubernetes-proxy</Code> in <Code>auth</Code>. A
          rule may also name an area itself (say <Code>canaries</Code> or <Code>playbook_runs</Code>): it then covers every object of that area.
        </p>
        <p>
          <Code>exec</Code> lies outside the role table: running a process on the server (exec checks, scrapers that run programs, exec and pod playbook actions)
          needs <Code>exec:run</Code> on <Code>exec</Code>. Only admins hold it unless a permission grants it; writing a canary, topology, scraper or playbook that
          would start a process is refused without it. The API also accepts the objects <Code>mcp</Code> (the MCP endpoint), <Code>views</Code>,{' '}
          <Code>application</Code> and <Code>auth</Code>.
        </p>
      </Section>

      <Section id="resources">
        <p>Instead of a whole object, a rule can name one resource. It then applies only to requests about that resource, and counts as a rule on its object:</p>
        <table className={TABLE_CLASS}>
          <thead>
            <tr>
              <th className={CELL_CLASS}>Resource kind</th>
              <th className={CELL_CLASS}>Column</th>
              <th className={CELL_CLASS}>Object it is about</th>
            </tr>
          </thead>
          <tbody>
            {RESOURCE_KINDS.filter((kind) => kind !== 'global').map((kind) => (
              <tr key={kind}>
                <td className={CELL_CLASS}>{RESOURCE_KIND_LABELS[kind]}</td>
                <td className={CELL_CLASS}>
                  <Code>{RESOURCE_COLUMN_OF[kind]}</Code>
                </td>
                <td className={CELL_CLASS}>
                  <Code>{RESOURCE_OBJECT[kind as keyof typeof RESOURCE_OBJECT]}</Code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p>
          Through the API a rule can instead carry an <Code>object_selector</Code>: lists of selectors under <Code>configs</Code>, <Code>components</Code>,{' '}
          <Code>canaries</Code>, <Code>checks</Code>, <Code>playbooks</Code>, <Code>connections</Code> or <Code>views</Code>. A selector matches on <Code>id</Code>,{' '}
          <Code>name</Code> and <Code>namespace</Code> (with <Code>*</Code> wildcards and a leading <Code>!</Code> to negate), <Code>types</Code>,{' '}
          <Code>tagSelector</Code> (<Code>key=value</Code>, <Code>key!=value</Code>, <Code>key</Code>, <Code>!key</Code>, comma-separated, all must hold) and{' '}
          <Code>agent</Code>. A selector the server cannot read grants nothing.
        </p>
        <p>
          A rule narrowed to a resource (by id, selector, tags or agents) is weighed only when a request names one resource, such as opening one config or one
          playbook by its id. It does not change what lists show: lists follow the rules on the whole object.
        </p>
      </Section>

      <Section id="actions">
        <p>
          The basic actions are <Code>read</Code>, <Code>create</Code>, <Code>update</Code> and <Code>delete</Code>. A rule may list several, separated by commas (
          <Code>create,read,update,delete</Code>); <Code>*</Code> is every action, and <Code>playbook:*</Code> every action that starts with <Code>playbook:</Code>.
          The dialog offers, by resource kind:
        </p>
        <table className={TABLE_CLASS}>
          <tbody>
            {RESOURCE_KINDS.map((kind) => (
              <tr key={kind}>
                <th className={CELL_CLASS}>{RESOURCE_KIND_LABELS[kind]}</th>
                <td className={CELL_CLASS}>
                  <CodeList values={ACTIONS_BY_RESOURCE_KIND[kind]} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p>
          <Code>playbook:run</Code>, <Code>playbook:approve</Code> and <Code>playbook:*</Code> fit only playbooks (the <Code>playbooks</Code> object or one
          playbook); <Code>exec:run</Code> fits only <Code>exec</Code>. The server also knows <Code>playbook:cancel</Code>, <Code>run</Code> (Run Now on a check),{' '}
          <Code>mcp:use</Code> and <Code>mcp:run</Code>. A grant on an <em>area</em> implies the finer actions: <Code>create</Code> there allows <Code>run</Code>,{' '}
          <Code>playbook:run</Code> and <Code>playbook:approve</Code>, <Code>update</Code> allows <Code>playbook:approve</Code> and <Code>playbook:cancel</Code>. A grant
          on an object that is not also an area name implies nothing beyond the actions it names.
        </p>
      </Section>

      <Section id="deny">
        <p>
          Deny turns a rule into a refusal. <strong>A deny always wins:</strong> one matching deny refuses the request whatever allows the subject holds, from roles,
          teams or other permissions; the order of rules does not matter. A deny narrowed to a resource, tags or agents refuses only requests about resources it
          matches.
        </p>
        <p>
          Two limits keep denies from locking everyone out. A deny that would take away <Code>rbac:update</Code> or the writing of permissions from every admin is
          refused when it is saved. And the bootstrap access token of the server is never denied, so an operator can always undo a rule.
        </p>
      </Section>

      <Section id="tags">
        <p>
          A rule with <Code>tags</Code> (a map such as <Code>{'{"env": "production"}'}</Code>) applies only to resources that carry every one of those tags with the
          same values. Together with deny it fences off part of the estate: deny <Code>update</Code> on <Code>catalog</Code> with the tag{' '}
          <Code>env=production</Code>, and production configs stay read-only for that subject while the others remain writable.
        </p>
      </Section>

      <Section id="agents">
        <p>
          Resources reported by an agent carry its id. A rule with <Code>agents</Code> (a list of agent ids, or <Code>*</Code> for any agent) applies only to
          resources of those agents; resources of the local installation carry the nil agent id <Code>00000000-0000-0000-0000-000000000000</Code>. Agents themselves
          are managed under the objects <Code>agent</Code> (registering, tokens) and <Code>agent-push</Code> (what agents send in).
        </p>
      </Section>

      <Section id="roles">
        <p>The grants each role carries before any stored permission (spec 002 §6). Effective access is the union over all of a user&apos;s roles.</p>
        <table className={TABLE_CLASS} data-testid="reference-role-matrix">
          <thead>
            <tr>
              <th className={CELL_CLASS}>Role</th>
              <th className={CELL_CLASS}>Reads</th>
              <th className={CELL_CLASS}>Writes</th>
            </tr>
          </thead>
          <tbody>
            {ROLES.map((role) => (
              <tr key={role}>
                <th className={CELL_CLASS}>{role}</th>
                <td className={CELL_CLASS}>{describeAreas(ROLE_MATRIX[role].read)}</td>
                <td className={CELL_CLASS}>{describeAreas(ROLE_MATRIX[role].write)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p>Admin holds every action on every object, <Code>exec:run</Code> included. Admin, editor, commander and responder may also Run Now a check.</p>
      </Section>

      <Section id="writing">
        <p>
          Writing permissions is <Code>rbac</Code> work: it needs <Code>update</Code> on <Code>rbac</Code>, which only admins hold unless a permission grants it.
          Whoever writes permissions without being an admin can only hand out what they hold themselves:
        </p>
        <ul className="flex list-disc flex-col gap-1 pl-6">
          <li>every action a rule grants or denies must be one they hold on its object;</li>
          <li>the subject may not hold anything they lack (no rules for someone above them);</li>
          <li>they cannot delete, expire, re-target or lift a deny that applies to themselves;</li>
          <li>rows change one at a time, by id.</li>
        </ul>
        <p>When the server refuses a rule for one of these reasons, the dialog shows its message and nothing is saved.</p>
      </Section>
    </article>
  )
}

function describeAreas(areas: readonly string[]): ReactNode {
  if (areas.length === 0) return 'none'
  if (areas.length === AREAS.length) return 'all areas'
  const missing = AREAS.filter((area) => !areas.includes(area))
  if (missing.length <= 4) return <>all except {<CodeList values={missing} />}</>
  return <CodeList values={areas} />
}

export const meta: MetaFunction = () => [{ title: documentTitle('Permissions reference') }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
