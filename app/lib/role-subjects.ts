/**
 * Roles a permission can be given to (spec 002 §6). Apart from the permission forms' zod schemas so a page that
 * only lists roles (the users table's role select) does not load zod (decision 014).
 */
export const ROLE_SUBJECTS = ['admin', 'editor', 'guest', 'viewer', 'responder', 'commander'] as const
