import { Form, Link } from '@remix-run/react'
import { DataTable, type DataColumn } from '#app/components/data-table/data-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Trash2, UserPlus } from '#app/components/ui/icons.tsx'
import type { TeamJob, TeamPerson } from '#app/lib/teams.server.ts'

/** The team page's Members and Job History tabs: tables, loaded only when one of them is open. */

const memberColumns: DataColumn<TeamPerson>[] = [
  { id: 'name', header: 'Name', enableSorting: false, cell: ({ row }) => row.original.name },
  { id: 'email', header: 'Email', enableSorting: false, cell: ({ row }) => row.original.email ?? '' },
]

export function MembersTab({ members, canWrite }: { members: TeamPerson[]; canWrite: boolean }) {
  const columns: DataColumn<TeamPerson>[] = canWrite
    ? [
        ...memberColumns,
        {
          id: 'actions',
          header: () => <span className="sr-only">Actions</span>,
          size: 48,
          enableSorting: false,
          cell: ({ row }) => (
            <Form method="post">
              <input type="hidden" name="intent" value="remove-member" />
              <input type="hidden" name="person_id" value={row.original.id} />
              <input type="hidden" name="name" value={row.original.name} />
              <button type="submit" aria-label={`Remove ${row.original.name}`} className={buttonVariants({ variant: 'ghost', size: 'icon' })} data-testid="remove-member">
                <Trash2 aria-hidden="true" />
              </button>
            </Form>
          ),
        },
      ]
    : memberColumns
  return (
    <div className="flex flex-col gap-3" data-testid="team-members">
      {canWrite ? (
        <div className="flex justify-end">
          <Link to="?tab=members&dialog=add-members" preventScrollReset className={buttonVariants({ size: 'sm' })} data-testid="add-members">
            <UserPlus aria-hidden="true" />
            Add Members
          </Link>
        </div>
      ) : null}
      <DataTable
        data={members}
        columns={columns}
        getRowId={(member) => member.id}
        testId="members-table"
        rowTestId="member-row"
        rowAttributes={(member) => ({ 'data-email': member.email ?? '' })}
        emptyMessage={<span data-testid="members-empty">You haven't added any team members to the team yet.</span>}
        caption="Team members"
      />
    </div>
  )
}

const jobColumns: DataColumn<TeamJob>[] = [
  { id: 'name', header: 'Name', enableSorting: false, cell: ({ row }) => row.original.name ?? '' },
  { id: 'status', header: 'Status', enableSorting: false, cell: ({ row }) => row.original.status ?? '' },
  { id: 'started', header: 'Started', enableSorting: false, cell: ({ row }) => <DateTime value={row.original.time_start} /> },
  { id: 'duration', header: 'Duration', enableSorting: false, cell: ({ row }) => (row.original.duration_millis != null ? `${row.original.duration_millis} ms` : '') },
  { id: 'success', header: 'Success', enableSorting: false, cell: ({ row }) => row.original.success_count ?? 0 },
  { id: 'errors', header: 'Errors', enableSorting: false, cell: ({ row }) => row.original.error_count ?? 0 },
]

export function JobsTab({ jobs }: { jobs: TeamJob[] }) {
  return <DataTable data={jobs} columns={jobColumns} getRowId={(job) => job.id} testId="team-jobs" caption="Job history" />
}
