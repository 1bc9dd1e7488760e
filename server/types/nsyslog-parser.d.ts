// nsyslog-parser ships no types; these are the fields of its answer that Lookout reads.
declare module 'nsyslog-parser' {
  type SyslogEntry = {
    type?: string
    ts?: Date
    host?: string
    appName?: string
    pid?: string
    messageid?: string
    level?: string
    facility?: string
    message?: string
    structuredData?: { $id?: string; [key: string]: unknown }[]
  }
  function parse(line: string): SyslogEntry
  export default parse
}
