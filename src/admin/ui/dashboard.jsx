// The admin's start page: how many rows each resource has, what changed last
// and who signed in last, from the server's dashboard handler (dashboard.ts).
// No links or images from outside the product (AdminJS's own dashboard
// advertises AdminJS).
import React, { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { Box, H2, H3, Loader, Text } from '@adminjs/design-system';
import { ApiClient, useTranslation } from 'adminjs';
import { Time, useTimeZone } from './time.jsx';

const api = new ApiClient();

const RowLink = ({ row, extra }) => {
  // As the lists show times (ui/time.jsx): one format, in TIME_ZONE.
  const timeZone = useTimeZone();
  return (
    <Box as="li" mb="sm" data-testid="dashboard-row" style={{ overflowWrap: 'anywhere' }}>
      {row.href ? <Link to={row.href}>{row.title}</Link> : <Text as="span">{row.title}</Text>}
      {extra ? <Text as="span" color="grey60" ml="sm">{extra}</Text> : null}
      <Text as="span" color="grey60" fontSize="sm" ml="default">
        <Time value={row.at} timeZone={timeZone} />
      </Text>
    </Box>
  );
};

/** A list of rows, each a link with its time and `extra(row)` beside it; `empty` when there is none. */
const Rows = ({ rows, empty, extra = () => null }) =>
  rows.length === 0 ? (
    <Text color="grey60">{empty}</Text>
  ) : (
    <Box as="ul">
      {rows.map((row) => (
        <RowLink key={row.id} row={row} extra={extra(row)} />
      ))}
    </Box>
  );

const Section = ({ title, testId, children }) => (
  <Box variant="white" mb="xl" data-testid={testId} style={{ minWidth: 0 }}>
    <H3>{title}</H3>
    {children}
  </Box>
);

const Count = ({ id, href, name, count }) => (
  <Box as="li" mb="default" flex justifyContent="space-between" data-testid={`dashboard-count-${id}`}>
    {href ? <Link to={href}>{name}</Link> : <Text as="span">{name}</Text>}
    <Text as="span" fontWeight="bold" data-testid="dashboard-count">{count}</Text>
  </Box>
);

const Counts = ({ resources, log }) => {
  const { translateMessage } = useTranslation();
  return (
    <Section title={translateMessage('dashboardCounts')} testId="dashboard-counts">
      <Box as="ul">
        {resources.map((resource) => (
          <Count key={resource.id} id={resource.id} href={resource.href} name={resource.plural} count={resource.count} />
        ))}
        <Count id="admin_audit_log" href={log.href} name={log.name} count={log.count} />
      </Box>
    </Section>
  );
};

// Django admin's "My actions": what this staff member added, changed or deleted last.
const Actions = ({ actions, log }) => {
  const { translateMessage } = useTranslation();
  return (
    <Section title={translateMessage('dashboardActions')} testId="dashboard-actions">
      <Rows rows={actions} empty={translateMessage('dashboardNoActions')} extra={(action) => `${action.verb} · ${action.resource}`} />
      <Box mt="default">
        <Link to={log.href}>{translateMessage('dashboardWholeLog')}</Link>
      </Box>
    </Section>
  );
};

const Latest = ({ resources }) => {
  const { translateMessage } = useTranslation();
  return (
    <Section title={translateMessage('dashboardLatest')} testId="dashboard-latest">
      {resources.map((resource) => (
        <Box key={resource.id} mb="lg" data-testid={`dashboard-latest-${resource.id}`}>
          <Text fontWeight="bold" mb="sm">{resource.plural}</Text>
          <Rows rows={resource.latest} empty={translateMessage('dashboardNoRows')} />
        </Box>
      ))}
    </Section>
  );
};

const Logins = ({ logins }) => {
  const { translateMessage } = useTranslation();
  return (
    <Section title={translateMessage('dashboardLogins')} testId="dashboard-logins">
      <Rows rows={logins} empty={translateMessage('dashboardNoLogins')} extra={(login) => (login.username !== login.title ? login.username : null)} />
    </Section>
  );
};

const Dashboard = () => {
  const { translateMessage } = useTranslation();
  const [data, setData] = useState(null);
  useEffect(() => {
    let current = true;
    api.getDashboard().then((response) => {
      if (current) setData(response.data);
    });
    return () => {
      current = false;
    };
  }, []);
  return (
    <Box variant="grey" data-testid="dashboard">
      <H2 mb="xl" px={['default', 0]}>{translateMessage('dashboardTitle')}</H2>
      {data ? (
        <Box flex flexDirection={['column', 'column', 'column', 'row']} style={{ gap: '24px' }} data-testid="dashboard-loaded">
          <Box flexBasis={['auto', 'auto', 'auto', '30%']} style={{ minWidth: 0 }}>
            <Counts resources={data.resources} log={data.log} />
            <Actions actions={data.actions} log={data.log} />
            <Logins logins={data.logins} />
          </Box>
          <Box flexGrow={1} style={{ minWidth: 0 }}>
            <Latest resources={data.resources} />
          </Box>
        </Box>
      ) : (
        <Loader />
      )}
    </Box>
  );
};

export default Dashboard;
