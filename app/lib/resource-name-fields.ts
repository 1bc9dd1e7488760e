import { z } from 'zod'

/** Kubernetes object names: lower-case words joined by dashes or dots. */
export const RESOURCE_NAME_PATTERN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/
export const RESOURCE_NAME_RULE = "may hold lower-case letters, digits, '-' and '.', and must start and end with a letter or digit"

/** The Name and Namespace fields of the resource forms (topology, playbook), with their messages. */
export const resourceNameField = z
  .string({ required_error: 'Name is required.' })
  .trim()
  .max(253, 'The name must be at most 253 characters.')
  .regex(RESOURCE_NAME_PATTERN, `The name ${RESOURCE_NAME_RULE}.`)

export const resourceNamespaceField = z
  .string()
  .trim()
  .max(63, 'The namespace must be at most 63 characters.')
  .regex(RESOURCE_NAME_PATTERN, `The namespace ${RESOURCE_NAME_RULE}.`)
  .optional()
