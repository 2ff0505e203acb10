// The export action's page, in a drawer over the list: a link that downloads
// the list as its filters and sort select it now, as CSV (src/admin/export.ts).
// A plain link, so the browser streams the file to disk as it comes.
import React from 'react';
import { useSelector } from 'react-redux';
import { useLocation } from 'react-router-dom';
import { Box, Button, DrawerContent, Text } from '@adminjs/design-system';
import { useTranslation } from 'adminjs';

// The list's own query parameters; the page number and the rest do not narrow an export.
const LIST_PARAMS = /^(filters\.|sortBy$|direction$)/;

const ExportAction = ({ resource }) => {
  const rootPath = useSelector((state) => state.paths.rootPath);
  const { search } = useLocation();
  const { translateMessage } = useTranslation();
  const kept = new URLSearchParams();
  for (const [key, value] of new URLSearchParams(search)) if (LIST_PARAMS.test(key)) kept.append(key, value);
  const query = kept.toString();
  const href = `${rootPath}/export/${encodeURIComponent(resource.id)}${query ? `?${query}` : ''}`;
  return (
    <DrawerContent>
      <Box mb="xl">
        <Text>{translateMessage('exportExplained', resource.id)}</Text>
      </Box>
      <Button as="a" href={href} download={`${resource.id}.csv`} variant="contained" data-testid="export-download">
        {translateMessage('exportDownload', resource.id)}
      </Button>
    </DrawerContent>
  );
};

export default ExportAction;
