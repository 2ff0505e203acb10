// AdminJS's edit form (its DefaultEditAction), with one addition: when the
// save is refused because the row changed or was deleted after the form was
// opened (resource.ts refuseStale, router.ts reportDeleted), the form stays as
// typed and a warning that does not fade says so, with a way to the current
// row. AdminJS's own notice fades after three seconds.
import React, { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Box, Button, DrawerContent, DrawerFooter, Icon, MessageBox } from '@adminjs/design-system';
import { ActionHeader, BasePropertyComponent, LayoutElementRenderer, useRecord, useTranslation } from 'adminjs';

// The error types of resource.ts's CONFLICT and DELETED.
const CHANGED = 'conflict';
const DELETED = 'deleted';

/** The URL with refresh=true, which makes AdminJS's list load again (its appendForceRefresh). */
function withRefresh(url) {
  const [path, query] = url.split('?');
  const params = new URLSearchParams(query ?? window.location.search);
  params.set('refresh', 'true');
  return `${path}?${params.toString()}`;
}

const StaleWarning = ({ stale, resource, onList }) => {
  const { translateMessage } = useTranslation();
  const box = useRef(null);
  useEffect(() => {
    box.current?.scrollIntoView?.({ block: 'center' });
  }, [stale]);
  return (
    <Box ref={box} mb="xl" role="alert" data-testid="edit-conflict" data-conflict={stale.type}>
      <MessageBox variant="danger" message={stale.message}>
        <Box mt="lg">
          {stale.type === DELETED ? (
            <Button type="button" variant="outlined" data-testid="edit-conflict-list" onClick={onList}>
              {translateMessage('conflictBack', resource.id)}
            </Button>
          ) : (
            <Button type="button" variant="outlined" data-testid="edit-conflict-reload" onClick={() => window.location.reload()}>
              {translateMessage('conflictReload', resource.id)}
            </Button>
          )}
        </Box>
      </MessageBox>
    </Box>
  );
};

const Edit = (props) => {
  const { record: initialRecord, resource, action } = props;
  const { record, handleChange, submit: handleSubmit, loading, setRecord } = useRecord(initialRecord, resource.id);
  const { translateButton } = useTranslation();
  const navigate = useNavigate();
  const [stale, setStale] = useState(null);

  useEffect(() => {
    if (initialRecord) {
      setRecord(initialRecord);
      setStale(null);
    }
  }, [initialRecord]);

  const submit = (event) => {
    event.preventDefault();
    handleSubmit()
      .then((response) => {
        const error = response.data.record?.baseError;
        if (error && (error.type === CHANGED || error.type === DELETED)) {
          setStale({ type: error.type, message: error.message });
          return;
        }
        setStale(null);
        if (response.data.redirectUrl) navigate(withRefresh(response.data.redirectUrl));
      })
      // useRecord has told the staff member already.
      .catch(() => undefined);
    return false;
  };

  const css = (part) => `${resource.id}-${action.name}-${part}`;
  return (
    <Box as="form" onSubmit={submit} flex flexDirection="column" data-css={css('form')}>
      <DrawerContent data-css={css('drawer-content')}>
        {action?.showInDrawer ? <ActionHeader {...props} /> : null}
        {stale ? <StaleWarning stale={stale} resource={resource} onList={() => navigate(withRefresh(resource.href))} /> : null}
        {action.layout
          ? action.layout.map((layoutElement, i) => (
              // eslint-disable-next-line react/no-array-index-key
              <LayoutElementRenderer key={i} layoutElement={layoutElement} {...props} where="edit" onChange={handleChange} record={record} />
            ))
          : resource.editProperties.map((property) => (
              <BasePropertyComponent key={property.propertyPath} where="edit" onChange={handleChange} property={property} resource={resource} record={record} />
            ))}
      </DrawerContent>
      <DrawerFooter data-css={css('drawer-footer')}>
        {/* A deleted row has nothing left to save to. */}
        <Button variant="contained" type="submit" data-css={css('drawer-submit')} data-testid="button-save" disabled={loading || stale?.type === DELETED}>
          {loading ? <Icon icon="Loader" spin /> : null}
          {translateButton('save', resource.id)}
        </Button>
      </DrawerFooter>
    </Box>
  );
};

export default Edit;
