// AdminJS's sidebar footer (empty: we show no "made with love"), carrying the
// admin's page-wide layout rules, since it is on every page after login:
// - from 1024 px on, the sidebar is open beside the page, with no menu
//   button (AdminJS keeps it behind the menu up to 1324 px);
// - below that, a list keeps every column (AdminJS shows only the title
//   column on phones): the table scrolls sideways inside the page, never the
//   page itself, and a long value is cut short rather than widening it.
import React from 'react';
import { Box } from '@adminjs/design-system';

// The design system's third breakpoint.
const WIDE = '1024px';
const NARROW = '1023.98px';

// A plain style element: the page's policy allows inline styles, as AdminJS's own need them.
const LAYOUT = `
  @media (min-width: ${WIDE}) {
    [data-css='sidebar'] {
      position: relative !important;
      left: 0 !important;
    }
    [data-css='topbar'] > :first-child {
      display: none !important;
    }
  }
  [data-css='app-content'] {
    min-width: 0;
    overflow-x: hidden;
  }
  @media (max-width: ${NARROW}) {
    table[data-css$='-table'] {
      display: block;
      overflow-x: auto;
      max-width: 100%;
    }
    table[data-css$='-table'] td,
    table[data-css$='-table'] th {
      display: table-cell !important;
    }
    table[data-css$='-table'] td[data-property-name] {
      max-width: 14em;
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
  }
`;

const SidebarFooter = () => (
  <Box mt="lg" mb="md" data-css="sidebar-footer">
    <style>{LAYOUT}</style>
  </Box>
);

export default SidebarFooter;
