/**
 * What the team forms' schemas (team-form.ts, zod, actions only) and their browser side
 * (access-form-shapes.ts, dialogs) both need, kept apart from either so neither imports the other.
 */

/** The icon a team gets when its form leaves the icon empty. */
export const DEFAULT_TEAM_ICON = 'group'
