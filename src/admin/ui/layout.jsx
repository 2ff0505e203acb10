// AdminJS's sidebar footer (empty: we show no "made with love"), carrying the
// admin's page-wide rules, since it is on every page after login (and the
// drop-down lists' hints in the page's language, below):
// - from 1024 px on, the sidebar is open beside the page, with no menu
//   button (AdminJS keeps it behind the menu up to 1324 px);
// - a list's table scrolls sideways inside its box, never the page, and a
//   long value is cut short on one line rather than wrapped letter by letter;
// - a row's page breaks a long word (a URL, say) rather than widen the page;
// - below 1024 px a list keeps every column (AdminJS shows only the title
//   column on phones, and we mark none), except that on a phone a list whose
//   declaration names its `phoneList` shows only those (phoneColumns, below).
import React from 'react';
import { useSelector } from 'react-redux';
import { Box, Select, SelectAsync } from '@adminjs/design-system';
import { useTranslation } from 'adminjs';

// The design system's third breakpoint.
const WIDE = '1024px';
const NARROW = '1023.98px';
// Below its first one: a phone.
const PHONE = '576.98px';

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
  [data-css$='-list-table-wrapper'] {
    overflow-x: auto;
  }
  /* The bar of the selected rows sits above the table, where the scrolling box would hide it: it takes its own line instead. */
  [data-css$='-list-table-wrapper'] caption {
    position: static;
    transform: none;
  }
  [data-css$='-list-table-wrapper'] td[data-property-name] {
    max-width: 20em;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  [data-testid^='property-show-'] {
    overflow-wrap: anywhere;
  }
  @media (max-width: ${NARROW}) {
    [data-css$='-list-table-wrapper'] td,
    [data-css$='-list-table-wrapper'] th {
      display: table-cell !important;
    }
    [data-css$='-list-table-wrapper'] td[data-property-name] {
      max-width: 14em;
    }
  }
  /* On a phone every pixel goes to the values: the cells keep half of their padding. */
  @media (max-width: ${PHONE}) {
    [data-css$='-list-table-wrapper'] td {
      padding-left: 8px;
      padding-right: 8px;
    }
  }
`;

/**
 * The rules that leave out, on a phone, the list columns a declaration's
 * `phoneList` does not name (index.ts marks them `custom.phone: false`). A
 * column is found by its place in the table: AdminJS's header cells carry no
 * column name; the first cell of a row is its checkbox.
 */
function phoneColumns(resources) {
  const rules = [];
  for (const resource of resources ?? []) {
    const table = `[data-css="${CSS.escape(resource.id)}-list-table-wrapper"]`;
    resource.listProperties.forEach((property, index) => {
      if (property.custom?.phone === false) rules.push(`${table} tr > :nth-child(${index + 2})`);
    });
  }
  return rules.length === 0 ? '' : `@media (max-width: ${PHONE}) { ${rules.join(', ')} { display: none !important; } }`;
}

/**
 * AdminJS's filters and forms give their drop-down lists no hint, so they
 * show react-select's English ones ("Select...", "No options") in every
 * language: the page's own become the defaults of the design system's two
 * drop-downs, which AdminJS's pages and ours share. This component renders
 * before the page's content (the sidebar comes first), so they are set in time.
 */
function useSelectHints() {
  const { translateMessage } = useTranslation();
  const hints = {
    placeholder: translateMessage('selectPlaceholder'),
    noOptionsMessage: () => translateMessage('selectNoOptions'),
    loadingMessage: () => translateMessage('selectLoading'),
  };
  for (const component of [Select, SelectAsync]) component.defaultProps = { ...component.defaultProps, ...hints };
}

const SidebarFooter = () => {
  useSelectHints();
  const resources = useSelector((state) => state.resources);
  return (
    <Box mt="lg" mb="md" data-css="sidebar-footer">
      <style>{LAYOUT + phoneColumns(resources)}</style>
    </Box>
  );
};

export default SidebarFooter;
