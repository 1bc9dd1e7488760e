import { DAY, HOUR, MINUTE, type Row, type SeedContext } from './context.ts'

const FIRST_NAMES = [
  'Alice', 'Ben', 'Chloé', 'Dmitri', 'Emma', 'Farid', 'Grace', 'Hiro', 'Ingrid', 'Jonas',
  'Kavya', 'Liam', 'Mei', 'Nadia', 'Oscar', 'Priya', 'Rafael', 'Sofia', 'Tomás', 'Yara',
]
const LAST_NAMES = [
  'Moreau', 'Okafor', 'Lambert', 'Volkov', 'Schulz', 'Haddad', 'Kim', 'Tanaka', 'Larsen', 'Berg',
  'Iyer', 'Walsh', 'Chen', 'Rahman', 'Nilsson', 'Patel', 'Costa', 'Rossi', 'Ortega', 'Aziz',
]

export const EMAIL_DOMAIN = 'acme-shop.io'

/** One person per role flavour the console distinguishes (admin … guest, commander, responder). */
const STAFF = [
  { key: 'platform-lead', role: 'admin', title: 'Head of Platform' },
  { key: 'sre', role: 'editor', title: 'Site Reliability Engineer' },
  { key: 'incident-manager', role: 'commander', title: 'Incident Manager' },
  { key: 'payments-oncall', role: 'responder', title: 'Payments Engineer (on-call)' },
  { key: 'backend', role: 'editor', title: 'Backend Engineer, Search' },
  { key: 'dba', role: 'responder', title: 'Database Administrator' },
  { key: 'product', role: 'viewer', title: 'Product Manager, Checkout' },
  { key: 'contractor', role: 'guest', title: 'Security Auditor (contractor)' },
] as const

export type StaffKey = (typeof STAFF)[number]['key']

const TEAMS = [
  { key: 'platform', name: 'Platform SRE', icon: 'kubernetes', members: ['platform-lead', 'sre', 'dba'] },
  { key: 'payments', name: 'Payments', icon: 'dollar', members: ['payments-oncall', 'incident-manager', 'dba'] },
  { key: 'storefront', name: 'Storefront', icon: 'shopping-cart', members: ['backend', 'product', 'sre'] },
] as const satisfies readonly { key: string; name: string; icon: string; members: readonly StaffKey[] }[]

export type TeamKey = (typeof TEAMS)[number]['key']

export const REMOTE_AGENT_NAME = 'prod-eu-west'
export const LOCAL_AGENT_ID = '00000000-0000-0000-0000-000000000000'

export type PeopleRefs = {
  person(key: StaffKey): { id: string; name: string; email: string }
  team(key: TeamKey): { id: string; name: string }
  roles: { personId: string; role: string }[]
  remoteAgentId: string
}

export function buildPeople(ctx: SeedContext): { rows: Record<string, Row[]>; refs: PeopleRefs } {
  const random = ctx.random('people')
  const firstNames = random.sample(FIRST_NAMES, STAFF.length)
  const lastNames = random.sample(LAST_NAMES, STAFF.length)

  const people = STAFF.map((staff, index) => {
    const first = firstNames[index]!
    const last = lastNames[index]!
    const local = `${first}.${last}`.toLowerCase().normalize('NFD').replace(/[^a-z.]/g, '')
    return {
      key: staff.key,
      role: staff.role,
      id: ctx.id('person', staff.key),
      name: `${first} ${last}`,
      email: `${local}@${EMAIL_DOMAIN}`,
      title: staff.title,
      joinedDaysAgo: random.int(120, 900),
      lastLoginMinutesAgo: staff.role === 'guest' ? random.int(6 * 24 * 60, 20 * 24 * 60) : random.int(5, 3 * 24 * 60),
    }
  })
  const byKey = new Map(people.map((person) => [person.key, person]))
  const person = (key: StaffKey) => {
    const found = byKey.get(key)
    if (!found) throw new Error(`unknown demo person ${key}`)
    return found
  }
  const admin = person('platform-lead')

  const remoteAgentId = ctx.id('agent', REMOTE_AGENT_NAME)
  const agentPersonId = ctx.id('person', `agent:${REMOTE_AGENT_NAME}`)

  const peopleRows: Row[] = people.map((p) => ({
    id: p.id,
    name: p.name,
    avatar: null,
    type: null,
    email: p.email,
    title: p.title,
    organization: 'Acme Shop',
    phone: `+44 20 7946 0${String(random.int(100, 999))}`,
    properties: { timezone: random.pick(['Europe/London', 'Europe/Berlin', 'Europe/Paris', 'Asia/Tokyo']) },
    created_at: ctx.ago(p.joinedDaysAgo * DAY),
    updated_at: ctx.ago(p.joinedDaysAgo * DAY),
    last_login: ctx.ago(p.lastLoginMinutesAgo * MINUTE),
  }))
  // The identity the remote agent authenticates as, as the platform gives every agent.
  peopleRows.push({
    id: agentPersonId,
    name: REMOTE_AGENT_NAME,
    avatar: null,
    type: 'agent',
    email: null,
    title: null,
    organization: 'Acme Shop',
    phone: null,
    properties: null,
    created_at: ctx.ago(95 * DAY),
    updated_at: ctx.ago(95 * DAY),
    last_login: null,
  })

  const teams = TEAMS.map((team) => ({ ...team, id: ctx.id('team', team.key) }))
  const teamRows: Row[] = teams.map((team, index) => ({
    id: team.id,
    name: team.name,
    icon: team.icon,
    spec: {
      components: [{ labelSelector: `team=${team.key}` }],
      notifications: [{ name: `${team.key}-chat`, connection: `connection://default/${team.key}-chat` }],
    },
    source: 'UI',
    created_by: admin.id,
    created_at: ctx.ago((200 - index * 20) * DAY),
    updated_at: ctx.ago((40 - index * 5) * DAY),
  }))
  const memberRows: Row[] = teams.flatMap((team) =>
    team.members.map((member) => ({ team_id: team.id, person_id: person(member).id, source: 'UI' })),
  )

  const agentRows: Row[] = [
    {
      id: remoteAgentId,
      name: REMOTE_AGENT_NAME,
      hostname: 'mission-control-agent-6d9f7c5b8-x2kqp',
      description: 'Agent in the eu-west-1 production VPC: edge probes and regional checks',
      ip: '10.42.17.88',
      version: 'v0.9.14',
      username: null,
      person_id: agentPersonId,
      properties: { region: 'eu-west-1', cluster: 'prod-eu-west-1' },
      tls: null,
      created_by: admin.id,
      created_at: ctx.ago(95 * DAY),
      updated_at: ctx.ago(2 * HOUR),
      cleanup: false,
      last_seen: ctx.ago(random.int(3, 25) * 1000),
      last_received: ctx.ago(random.int(30, 90) * 1000),
    },
  ]

  return {
    rows: { people: peopleRows, teams: teamRows, team_members: memberRows, agents: agentRows },
    refs: {
      person,
      team(key) {
        const team = teams.find((candidate) => candidate.key === key)
        if (!team) throw new Error(`unknown demo team ${key}`)
        return team
      },
      roles: people.map((p) => ({ personId: p.id, role: p.role })),
      remoteAgentId,
    },
  }
}
