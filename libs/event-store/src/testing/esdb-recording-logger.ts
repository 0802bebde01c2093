/** TEST SUPPORT ONLY: a logger for the EventStoreDB adapter specs that keeps what it was told. */
export interface LoggedLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly fields: object;
  readonly message: string;
}

export class RecordingLogger {
  readonly lines: LoggedLine[] = [];
  info(fields: object, message: string): void {
    this.lines.push({ level: 'info', fields, message });
  }
  warn(fields: object, message: string): void {
    this.lines.push({ level: 'warn', fields, message });
  }
  error(fields: object, message: string): void {
    this.lines.push({ level: 'error', fields, message });
  }
}
