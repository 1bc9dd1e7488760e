import type { ActionType } from '#contract/playbook/playbook-vocabulary.ts'
import type { ActionRunner } from '../playbook-model.ts'

/**
 * Action types the document accepts but this Lookout cannot run: each needs a platform (a git
 * host, a CI service, a Kubernetes cluster, an LLM provider) that embedded mode does not connect
 * to. Running one fails the action with what is missing, instead of pretending it ran.
 */
const REASONS: Partial<Record<ActionType, string>> = {
  gitops: 'gitops actions need a git platform connection (clone, commit, pull request), which this Lookout does not run',
  github: 'github actions dispatch GitHub workflows, which this Lookout does not run; call the GitHub API from an http action instead',
  azureDevopsPipeline: 'azureDevopsPipeline actions need the Azure DevOps platform, which this Lookout does not run; call its REST API from an http action instead',
  pod: 'pod actions start a pod in a Kubernetes cluster, which this Lookout does not run; use an exec action with kubectl instead',
  ai: 'ai actions need an LLM provider integration, which this Lookout does not run',
  report: 'report actions (catalog reports) are not available in this Lookout',
  catalog: 'catalog actions (creating catalog items) are not available in this Lookout',
}

export function unsupportedAction(type: ActionType): ActionRunner {
  return async () => ({ result: {}, error: REASONS[type] ?? `${type} actions are not available in this Lookout` })
}
