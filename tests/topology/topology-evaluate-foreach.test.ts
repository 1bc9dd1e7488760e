import { describe, expect, it } from 'vitest'
import { applyForEach, ForEachTemplateError, forEachVariables, substitutePlaceholders } from '#server/backend/topology/topology-foreach.ts'

const pod = { name: 'web-1', type: 'Pod', labels: { zone: 'a', 'app.kubernetes.io/name': 'web' }, properties: [{ name: 'cpu', value: 120 }, { name: 'image', text: 'nginx:1.27' }] }
const variables = forEachVariables(pod)

describe('forEach $(...) placeholders', () => {
  it('reads the component and its properties, with or without the leading dot', () => {
    expect(substitutePlaceholders('$(.component.name)', variables)).toBe('web-1')
    expect(substitutePlaceholders('pod=$(component.name) zone=$(.component.labels.zone)', variables)).toBe('pod=web-1 zone=a')
    expect(substitutePlaceholders('$(.properties.cpu)m on $(.properties.image)', variables)).toBe('120m on nginx:1.27')
  })

  it('runs Go template pipelines, with balanced parentheses and quoted ones inside', () => {
    expect(substitutePlaceholders('$(index .component.labels "app.kubernetes.io/name")', variables)).toBe('web')
    expect(substitutePlaceholders('$(printf "%s-%s" .component.name (.component.labels.zone))', variables)).toBe('web-1-a')
    expect(substitutePlaceholders('$(printf "(%s)" .component.name)', variables)).toBe('(web-1)')
    expect(substitutePlaceholders('$(.component.name | upper)', variables)).toBe('WEB-1')
  })

  it('renders a missing value empty and leaves {{ }} and plain text alone', () => {
    expect(substitutePlaceholders('x$(.component.nothing)y', variables)).toBe('xy')
    expect(substitutePlaceholders('{{.code}} stays for the check', variables)).toBe('{{.code}} stays for the check')
    expect(substitutePlaceholders('costs $5 (roughly)', variables)).toBe('costs $5 (roughly)')
  })

  it('refuses an unclosed placeholder and an unknown function, naming the placeholder', () => {
    expect(() => substitutePlaceholders('$(.component.name', variables)).toThrow(ForEachTemplateError)
    expect(() => substitutePlaceholders('a $(nosuchfunc .component.name) b', variables)).toThrow(/\$\(nosuchfunc \.component\.name\)/)
  })

  it('appends the rendered entries to the component, properties first so later entries see them', () => {
    const item = applyForEach(pod, {
      properties: [{ name: 'zone', text: '$(.component.labels.zone)' }],
      components: [{ name: '$(.component.name)-sidecar', labels: { zone: '$(.properties.zone)' } }],
      selectors: [{ labelSelector: 'app=$(.component.name)' }],
    })
    expect(item.properties).toEqual([...pod.properties, { name: 'zone', text: 'a' }])
    expect(item.components).toEqual([{ name: 'web-1-sidecar', labels: { zone: 'a' } }])
    expect(item.selectors).toEqual([{ labelSelector: 'app=web-1' }])
    // The looked-up component itself is not changed.
    expect(pod.properties).toHaveLength(2)
  })
})
