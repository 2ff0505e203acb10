// The admin's start page: how many rows each resource has, what changed last
// and who signed in last, from the server's dashboard handler (dashboard.ts).
// No links or images from outside the product (AdminJS's own dashboard
// advertises AdminJS).
import React, { useEffect, useState } from 'react';
import { useSelector } from 'react-redux';
import { Link } from 'react-router-dom';
import { Box, H2, H3, Loader, Text } from '@adminjs/design-system';
import { ApiClient, useTranslation } from 'adminjs';

const api = new ApiClient();

/** A time in the page's language; the full ISO time on hover. */
const Time = ({ at, language }) => {
  if (!at) return null;
  return (
    <Text as="time" dateTime={at} title={at} color="grey60" fontSize="sm" ml="default">
      {new Date(at).toLocaleString(language)}
    </Text>
  );
};

const RowLink = ({ row, language, extra }) => (
  <Box as="li" mb="sm" data-testid="dashboard-row" style={{ overflowWrap: 'anywhere' }}>
    {row.href ? <Link to={row.href}>{row.title}</Link> : <Text as="span">{row.title}</Text>}
    {extra ? <Text as="span" color="grey60" ml="sm">{extra}</Text> : null}
    <Time at={row.at} language={language} />
  </Box>
);

const Section = ({ title, testId, children }) => (
  <Box variant="white" mb="xl" data-testid={testId} style={{ minWidth: 0 }}>
    <H3>{title}</H3>
    {children}
  </Box>
);

const Counts = ({ resources }) => {
  const { translateMessage } = useTranslation();
  return (
    <Section title={translateMessage('dashboardCounts')} testId="dashboard-counts">
      <Box as="ul">
        {resources.map((resource) => (
          <Box as="li" key={resource.id} mb="default" flex justifyContent="space-between" data-testid={`dashboard-count-${resource.id}`}>
            {resource.href ? <Link to={resource.href}>{resource.plural}</Link> : <Text as="span">{resource.plural}</Text>}
            <Text as="span" fontWeight="bold" data-testid="dashboard-count">{resource.count}</Text>
          </Box>
        ))}
      </Box>
    </Section>
  );
};

const Latest = ({ resources, language }) => {
  const { translateMessage } = useTranslation();
  return (
    <Section title={translateMessage('dashboardLatest')} testId="dashboard-latest">
      {resources.map((resource) => (
        <Box key={resource.id} mb="lg" data-testid={`dashboard-latest-${resource.id}`}>
          <Text fontWeight="bold" mb="sm">{resource.plural}</Text>
          {resource.latest.length === 0 ? (
            <Text color="grey60">{translateMessage('dashboardNoRows')}</Text>
          ) : (
            <Box as="ul">
              {resource.latest.map((row) => <RowLink key={row.id} row={row} language={language} />)}
            </Box>
          )}
        </Box>
      ))}
    </Section>
  );
};

const Logins = ({ logins, language }) => {
  const { translateMessage } = useTranslation();
  return (
    <Section title={translateMessage('dashboardLogins')} testId="dashboard-logins">
      {logins.length === 0 ? (
        <Text color="grey60">{translateMessage('dashboardNoLogins')}</Text>
      ) : (
        <Box as="ul">
          {logins.map((login) => (
            <RowLink key={login.id} row={login} language={language} extra={login.username !== login.title ? login.username : null} />
          ))}
        </Box>
      )}
    </Section>
  );
};

const Dashboard = () => {
  const { translateMessage } = useTranslation();
  const language = useSelector((state) => state.locale?.language);
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
            <Counts resources={data.resources} />
            <Logins logins={data.logins} language={language} />
          </Box>
          <Box flexGrow={1} style={{ minWidth: 0 }}>
            <Latest resources={data.resources} language={language} />
          </Box>
        </Box>
      ) : (
        <Loader />
      )}
    </Box>
  );
};

export default Dashboard;
