/**
 * Dispatches `svc <subcommand>`; returns the exit code, or undefined for a long-running server.
 */
export async function runCli(argv: string[]): Promise<number | undefined> {
  const [first, ...rest] = argv;
  switch (first) {
    case 'script': {
      const { scriptCommand } = await import('../script/index.js');
      return scriptCommand(rest);
    }
    default: {
      const { startCommand } = await import('./start.js');
      return startCommand(first === 'start' ? rest : argv);
    }
  }
}
