// `{port}` in app.command and app.url: the run's port (app.port, or a free one when it is 0), filled in
// by Elenchos before the command starts and before the URL is waited on.
export const PORT_PLACEHOLDER = '{port}';

/** `template` with every `{port}` replaced by `port`. */
export function fillPort(template: string, port: number): string {
  return template.replaceAll(PORT_PLACEHOLDER, String(port));
}
