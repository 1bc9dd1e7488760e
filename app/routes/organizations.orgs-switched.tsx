import { redirect } from '@remix-run/node'

/** Landing after an organisation switch: the console's home shows the new organisation. */
export async function loader() {
  return redirect('/')
}
