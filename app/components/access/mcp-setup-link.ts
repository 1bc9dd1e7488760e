import { useDialogParamHref } from './dialog-param-href.ts'

/** The URL parameter that opens the Setup MCP dialog (`?mcp=open`) on whatever page the user is on. */
export const MCP_SETUP_PARAM = 'mcp'

export function useMcpSetupHref(open: boolean): string {
  return useDialogParamHref(MCP_SETUP_PARAM, open)
}
