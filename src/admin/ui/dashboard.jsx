// The admin's start page: the resources staff manage, with no links or images
// from outside the product (AdminJS's own dashboard advertises AdminJS).
import React from 'react';
import { useSelector } from 'react-redux';
import { Link } from 'react-router-dom';
import { Box, H2, Text } from '@adminjs/design-system';
import { useTranslation } from 'adminjs';

const Dashboard = () => {
  const resources = useSelector((state) => state.resources);
  const { translateLabel, translateMessage } = useTranslation();
  return (
    <Box variant="grey">
      <Box variant="white" data-testid="dashboard">
        <H2>{translateMessage('dashboardTitle')}</H2>
        <Box as="ul">
          {resources.map((resource) => (
            <Box as="li" key={resource.id} mb="default">
              <Link to={resource.href}>
                <Text as="span">{translateLabel(resource.name, resource.id)}</Text>
              </Link>
            </Box>
          ))}
        </Box>
      </Box>
    </Box>
  );
};

export default Dashboard;
