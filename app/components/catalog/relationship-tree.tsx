import { Link } from '@remix-run/react'
import { ChevronRight } from '#app/components/ui/icons.tsx'
import type { RelatedItem, RelationshipNode } from '#app/lib/catalog-vocabulary.ts'
import { ConfigType, HealthBadge } from './catalog-badges.tsx'

function ItemLine({ item, isRoot }: { item: RelatedItem; isRoot?: boolean }) {
  return (
    <span className="inline-flex flex-wrap items-center gap-2 py-0.5">
      {isRoot ? (
        <span className="font-medium">{item.name ?? item.id}</span>
      ) : (
        <Link to={`/catalog/${item.id}/relationships`} className="font-medium hover:underline" data-testid="related-item">
          {item.name ?? item.id}
        </Link>
      )}
      <ConfigType type={item.type} className="text-xs text-muted-foreground" iconClassName="size-3" />
      <HealthBadge health={item.health} />
      {item.status ? <span className="text-xs text-muted-foreground">{item.status}</span> : null}
    </span>
  )
}

function TreeNode({ node, isRoot }: { node: RelationshipNode; isRoot?: boolean }) {
  if (node.children.length === 0) {
    return (
      <li className="pl-5">
        <ItemLine item={node.item} isRoot={isRoot} />
      </li>
    )
  }
  return (
    <li>
      <details open>
        <summary className="flex cursor-pointer list-none items-center gap-1">
          <ChevronRight aria-hidden="true" className="size-4 shrink-0 transition-transform [details[open]>summary>&]:rotate-90" />
          <ItemLine item={node.item} isRoot={isRoot} />
          <span className="ml-1 text-xs text-muted-foreground">({node.children.length})</span>
        </summary>
        <ul className="ml-2 border-l pl-3">
          {node.children.map((child) => (
            <TreeNode key={child.item.id} node={child} />
          ))}
        </ul>
      </details>
    </li>
  )
}

/**
 * One direction of an item's relationships as a tree of `<details>` (folds without JavaScript):
 * the item at the root, what it leads to below it, each item once.
 */
export function RelationshipTree({ title, root, detached, testId }: { title: string; root: RelationshipNode | null; detached: RelatedItem[]; testId: string }) {
  const empty = !root || root.children.length === 0
  return (
    <section className="flex flex-col gap-2 rounded-md border bg-card p-3" data-testid={testId}>
      <h2 className="text-sm font-semibold">{title}</h2>
      {empty ? <p className="text-sm text-muted-foreground">No related items.</p> : null}
      {root && !empty ? (
        <ul className="text-sm">
          <TreeNode node={root} isRoot />
        </ul>
      ) : null}
      {detached.length ? (
        <div className="flex flex-col gap-1 border-t pt-2">
          <h3 className="text-xs font-semibold uppercase text-muted-foreground">Parents</h3>
          <ul className="text-sm">
            {detached.map((item) => (
              <li key={item.id}>
                <ItemLine item={item} />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  )
}
