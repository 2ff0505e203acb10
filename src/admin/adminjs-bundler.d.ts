// adminjs exports `adminjs/bundler` without types.
declare module 'adminjs/bundler' {
  import type AdminJS from 'adminjs';

  export const componentsBundler: {
    createEntry(options: { content: string }): Promise<void>;
    build(): Promise<void>;
  };
  export function generateUserComponentEntry(admin: AdminJS, entryPath: string): string;
}
