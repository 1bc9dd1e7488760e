import { getZodConstraint } from '@conform-to/zod'
import { describe, expect, it } from 'vitest'
import { AddMembersShape, CreateTeamShape, CreateTokenShape, InviteShape, TeamSpecShape } from '#app/components/access/access-form-shapes.ts'
import { AddMembersSchema, CreateTeamSchema, TeamSpecSchema } from '#app/components/access/team-form.ts'
import { InviteSchema } from '#app/components/access/user-forms.ts'
import { PropertyShape } from '#app/lib/feature-flag-form-shapes.ts'
import { CreatePropertySchema, UpdatePropertySchema } from '#app/lib/feature-flag-forms.ts'
import * as shapes from '#app/lib/incident-form-shapes.ts'
import * as schemas from '#app/lib/incident-forms.ts'
import { LoginSchema } from '#app/lib/login-form.ts'
import { LoginShape } from '#app/lib/login-shape.ts'
import { PermissionShape } from '#app/lib/permissions-form-shapes.ts'
import { PermissionFormSchema } from '#app/lib/permissions-form.ts'
import { PreferencesShape } from '#app/lib/preferences-form-shape.ts'
import { PreferencesFormSchema } from '#app/lib/preferences-form.ts'
import { ResourceShape } from '#app/lib/resource-editor-shapes.ts'
import { ResourceFormSchema } from '#app/lib/resource-editor.ts'
import { CreateTokenSchema } from '#app/lib/token-scopes.ts'
import { TopologyFormSchema } from '#app/lib/topology-form.ts'
import { TopologyFormShape } from '#app/lib/topology-form-shape.ts'

/** A zod constraint with its RegExp patterns as the strings the browser gets. */
function asRendered(constraint: Record<string, Record<string, unknown>> | undefined) {
  return JSON.parse(JSON.stringify(constraint ?? {}))
}

// Decision 016: pages render forms from zod-free shapes; each must equal what conform derives
// from the schema the action parses the post with, so the browser's checks and the server's agree.
describe('form shapes equal their schemas’ constraints', () => {
  const pairs: Array<[string, { constraint: object }, Parameters<typeof getZodConstraint>[0]]> = [
    ['create incident', shapes.CreateIncidentShape, schemas.CreateIncidentSchema],
    ['incident status', shapes.StatusChangeShape, schemas.StatusChangeSchema],
    ['incident details', shapes.IncidentDetailsShape, schemas.IncidentDetailsSchema],
    ['add responder', shapes.AddResponderShape, schemas.AddResponderSchema],
    ['comment', shapes.CommentShape, schemas.CommentSchema],
    ['add hypothesis', shapes.AddHypothesisShape, schemas.AddHypothesisSchema],
    ['hypothesis status', shapes.HypothesisStatusShape, schemas.HypothesisStatusSchema],
    ['choose incident', shapes.ChooseIncidentShape, schemas.ChooseIncidentSchema],
    ['permission', PermissionShape, PermissionFormSchema],
    ['topology', TopologyFormShape, TopologyFormSchema],
    ['create property', PropertyShape, CreatePropertySchema],
    ['update property', PropertyShape, UpdatePropertySchema],
    ['create team', CreateTeamShape, CreateTeamSchema],
    ['team spec', TeamSpecShape, TeamSpecSchema],
    ['add members', AddMembersShape, AddMembersSchema],
    ['invite', InviteShape, InviteSchema],
    ['create token', CreateTokenShape, CreateTokenSchema],
    ['preferences', PreferencesShape, PreferencesFormSchema],
    ['resource spec', ResourceShape, ResourceFormSchema],
    ['token sign-in', LoginShape, LoginSchema],
  ]
  it.each(pairs)('%s', (_name, shape, schema) => {
    expect(shape.constraint).toEqual(asRendered(getZodConstraint(schema)))
  })

  it('link to incident: both branches’ fields', () => {
    expect(shapes.LinkShape.constraint).toEqual(asRendered(schemas.getLinkConstraint()))
  })
})
