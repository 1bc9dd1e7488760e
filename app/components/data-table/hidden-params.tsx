/**
 * The current URL's parameters as hidden inputs, so a GET form (go to page, page size, search)
 * changes one parameter and keeps the rest without JavaScript.
 */
export function HiddenParams({ search, exclude }: { search: string; exclude: readonly string[] }) {
  const params = new URLSearchParams(search)
  return (
    <>
      {[...params.entries()]
        .filter(([name]) => !exclude.includes(name))
        .map(([name, value], index) => (
          <input key={`${name}-${index}`} type="hidden" name={name} value={value} />
        ))}
    </>
  )
}
