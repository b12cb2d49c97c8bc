// Checks a Kubernetes object against the API's own schema, as shipped by the `kubernetes-models` package
// (generated from the Kubernetes OpenAPI document): its validators for types, enums and required fields, and
// its type declarations, compiled with the object as a literal, for fields the API does not have (the
// generated validators accept unknown fields; the API server with strict field validation does not).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Each problem the schema finds in each of `objects` (`batch/v1` Jobs), as `validate: …` or `types: …` lines;
 * an empty list for an object that holds. One compile for all of them (loading the declarations is the cost).
 */
export async function jobSchemaProblems(objects: readonly unknown[]): Promise<string[][]> {
  const { Job } = await import('kubernetes-models/batch/v1/Job');
  const problems = objects.map((object) => {
    try {
      new Job(object as never).validate();
      return [];
    } catch (error) {
      return [`validate: ${(error as Error).message}`];
    }
  });
  for (const { index, message } of typeErrors(objects, 'kubernetes-models/batch/v1/Job', 'IJob'))
    problems[index]!.push(`types: ${message}`);
  return problems;
}

/** Type errors of `const x<i>: <type> = <object i>`: unknown fields (excess properties) and wrong types, by the package's declarations. */
function typeErrors(objects: readonly unknown[], module: string, type: string): { index: number; message: string }[] {
  const file = path.join(ROOT, 'test', '__k8s_check__.ts');
  const starts: number[] = [];
  let source = `import type { ${type} } from '${module}';\n`;
  objects.forEach((object, i) => {
    starts.push(source.length);
    source += `export const object${i}: ${type} = ${JSON.stringify(object, null, 2)};\n`;
  });
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022,
    // The language's own declarations only: the target's default would add the DOM's, several times the
    // size of everything else this compile reads, for types a Job never names.
    lib: ['lib.es2022.d.ts'],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.fileExists = (name) => name === file || fileExists(name);
  host.getSourceFile = (name, version, onError, create) =>
    name === file ? ts.createSourceFile(name, source, version, true) : getSourceFile(name, version, onError, create);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ({
    index: d.start === undefined ? 0 : starts.findLastIndex((at) => at <= d.start!),
    message: ts.flattenDiagnosticMessageText(d.messageText, ' '),
  }));
}
