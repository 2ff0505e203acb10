import './env.js';
import path from 'node:path';
import { ComponentLoader } from 'adminjs';
import { projectRoot } from '../paths.js';

/** The admin's own front-end components; `npm run build` bundles what is registered here (bundle.ts). */
export const componentLoader = new ComponentLoader();

export const DASHBOARD_COMPONENT = componentLoader.add('Dashboard', path.join(projectRoot, 'src', 'admin', 'ui', 'dashboard.jsx'));
/** AdminJS's edit form, which also warns when its row changed or was deleted after it was opened. */
componentLoader.override('DefaultEditAction', path.join(projectRoot, 'src', 'admin', 'ui', 'edit.jsx'));
/** The export action's page: a link that downloads the list as filtered (export.ts). */
export const EXPORT_COMPONENT = componentLoader.add('ExportAction', path.join(projectRoot, 'src', 'admin', 'ui', 'export.jsx'));
/** Carries the page-wide layout rules: the sidebar open on wide screens, lists usable on phones (ui/layout.jsx). */
componentLoader.override('SidebarFooter', path.join(projectRoot, 'src', 'admin', 'ui', 'layout.jsx'));
/** Times on lists and row pages as the dashboard shows them: one format, in TIME_ZONE (ui/time.jsx). */
const TIME_COMPONENT = path.join(projectRoot, 'src', 'admin', 'ui', 'time.jsx');
componentLoader.override('DefaultDatetimeListProperty', TIME_COMPONENT);
componentLoader.override('DefaultDatetimeShowProperty', TIME_COMPONENT);
