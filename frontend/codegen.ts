// Generates TypeScript types for every operation in src/ from the API's
// schema, so that a schema change the UI does not follow fails the build.
import type { CodegenConfig } from "@graphql-codegen/cli";

const config: CodegenConfig = {
  schema: "../schema/*.graphqls",
  documents: ["src/**/*.{ts,tsx}", "!src/gql/**/*"],
  ignoreNoDocuments: false,
  generates: {
    "src/gql/": {
      preset: "client",
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        strictScalars: true,
        scalars: { Time: "string", JSON: "unknown" },
        avoidOptionals: { field: true, inputValue: false, object: false },
      },
    },
  },
};

export default config;
